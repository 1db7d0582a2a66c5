/**
 * One imported chat, written in steps (docs/api.md, "Export and import"): each step is a short transaction of a
 * bounded size, and the event loop turns between them, so no chat of any size holds the store or the process
 * for long. The chat stays hidden until its last step shows it (lib/db/tx/import-lease.ts); a failed import
 * removes it, in bounded parts too, and refunds its bytes; one whose process died is removed by any instance's
 * sweep (`reapAbandonedImports`) once its lease has passed. A chat small enough for one step is written in one
 * transaction, begin to end.
 */
import { sql } from "drizzle-orm";
import { getDb } from "./connection";
import type { Database } from "./database";
import { summary } from "./rows";
import { type ChatImport, dropImportPart, type ImportStep, resumeImport } from "./tx/import-lease";
import type { SessionSummary } from "./types";

/** Lets other requests and timers run between two steps. */
const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function importChat(userId: string, chat: ChatImport): Promise<SessionSummary> {
  const db = await getDb();
  await pause();
  if (chat.whole) {
    // Made before the transaction, which may run again (a PostgreSQL deadlock's victim).
    const steps: ImportStep[] = [];
    for await (const step of chat.steps) steps.push(step);
    return summary(
      await db.write(async (tx) => {
        const { id } = await chat.begin(tx, userId);
        for (const step of steps) await step(tx, await resumeImport(tx, id));
        return chat.finish(tx, await resumeImport(tx, id));
      }),
    );
  }
  const { id } = await db.write((tx) => chat.begin(tx, userId));
  try {
    for await (const step of chat.steps) {
      await pause();
      await db.write(async (tx) => step(tx, await resumeImport(tx, id)));
    }
    await pause();
    return summary(await db.write(async (tx) => chat.finish(tx, await resumeImport(tx, id))));
  } catch (error) {
    // Should the removal fail too, the sweep removes the chat once its lease has passed.
    await drop(db, id).catch((failed) => console.error("removing a failed import:", failed));
    throw error;
  }
}

async function drop(db: Database, id: string) {
  while (!(await db.write((tx) => dropImportPart(tx, id)))) await pause();
}

/** Removes the chats of imports whose lease has passed (their process died mid-import). Returns how many. */
export async function reapAbandonedImports(now = Date.now()): Promise<number> {
  const db = await getDb();
  const abandoned = await db.all<{ id: string }>(sql`SELECT id FROM sessions WHERE import_lease_until < ${now}`);
  for (const { id } of abandoned) await drop(db, id);
  return abandoned.length;
}
