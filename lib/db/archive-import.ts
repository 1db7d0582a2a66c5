/**
 * Importing a chat of a Retrace archive (lib/archive/format.ts) for the importing user, in one transaction:
 * a new chat with new ids where ids must be unique (the chat, its tasks), its file versions as they were,
 * then its raw log through the store's own append (appendEventsTx: seqs, state, markers, the version tree,
 * checkpoints), then its tasks, then the names and pins of its turns (invocation ids are kept, so they name
 * the same turns; an archive from before labels has none). Every row is charged to the importer's byte quota as it is written, so an
 * archive that does not fit stops at the chat that crosses it, and that chat leaves nothing behind.
 */
import { sql } from "drizzle-orm";
import type { ArchiveSession, ChatRecord } from "@/lib/archive/format";
import { ValidationError } from "@/lib/errors";
import { normalizeEvent } from "@/lib/session/normalize";
import { scopeOf } from "@/lib/session/state";
import type { AdkEvent, State } from "@/lib/session/types";
import { getDb } from "./client";
import type { SessionRow } from "./rows";
import { summary } from "./rows";
import { appendEventsTx } from "./tx/append";
import { charge, clean, freshRow, insertFile, insertLabel, insertTask, millis } from "./tx/import";
import { createSessionTx } from "./tx/sessions";
import type { SessionSummary } from "./types";

/** What the import of one archive shares between its chats. */
export interface ImportContext {
  /** Archive chat id → the new chat's id: a fork whose source came earlier in the archive keeps its lineage. */
  sources: Map<string, string>;
  /** The agent the chat gets: the archive's when this app has it. */
  agent(name: string): string;
}

/** Events per append: a batch's statements are built in memory, so an import keeps them small. */
const EVENTS_PER_APPEND = 250;

const PHASES = { session: 0, file: 1, event: 2, task: 3, label: 4 } as const;

const sessionKeys = (state: State) => Object.fromEntries(Object.entries(state).filter(([key]) => scopeOf(key) === "session"));

/** Imports one archive chat (its records in archive order) for `userId`; resolves with the new chat. */
export async function importArchiveChat(
  userId: string,
  records: AsyncIterable<ChatRecord>,
  context: ImportContext,
): Promise<SessionSummary> {
  const db = await getDb();
  const imported = await db.write(async (tx) => {
    let session: ArchiveSession | null = null;
    let row: SessionRow | null = null;
    let phase = 0;
    let seq = 0;
    let batch: AdkEvent[] = [];
    const versions = new Map<string, number>();
    const messageIds = new Set<string>();
    const labelled = new Set<string>();
    let taskBytes = 0;
    const flush = async () => {
      if (!row || batch.length === 0) return;
      await appendEventsTx(tx, row, batch, { imported: true });
      batch = [];
      row = await freshRow(tx, row.id);
    };
    for await (const record of records) {
      if (PHASES[record.kind] < phase || (record.kind === "session") !== (row === null)) {
        throw new ValidationError(
          `A chat's records must come in order (session, files, events, tasks, labels); found a ${record.kind} out of place`,
        );
      }
      phase = PHASES[record.kind];
      if (record.kind === "session") {
        session = record.value;
        row = await createSessionTx(tx, userId, {
          agent: context.agent(clean(session.agent, "An agent name")),
          name: clean(session.name, "A chat name") || "Imported chat",
          state: sessionKeys(session.initial_state),
        });
        continue;
      }
      const current = row as SessionRow;
      if (record.kind === "file") await insertFile(tx, current, record.value, versions);
      else if (record.kind === "event") {
        const { seq: given, ...event } = record.value;
        if (given !== ++seq) throw new ValidationError(`Chat ${session?.id}: event seq ${given} where ${seq} was expected`);
        for (const [value, what] of [
          [event.id, "An event id"],
          [event.invocation_id, "An invocation id"],
          [event.author, "An author"],
        ]) {
          clean(value, what);
        }
        batch.push(normalizeEvent(event));
        if (batch.length >= EVENTS_PER_APPEND) await flush();
      } else if (record.kind === "task") {
        await flush();
        taskBytes += await insertTask(tx, current, record.value, messageIds);
      } else {
        await flush();
        taskBytes += await insertLabel(tx, row as SessionRow, record.value, labelled);
      }
    }
    await flush();
    if (!row || !session) throw new ValidationError("An archive chat has no session");
    // Tasks and labels are small: charged together, once they are all in.
    await charge(tx, row, taskBytes);
    const source = session.forked_from_session_id ? (context.sources.get(session.forked_from_session_id) ?? null) : null;
    const done = await tx.one<SessionRow>(sql`
      UPDATE sessions SET name = ${(row as SessionRow).name}, named_by_user = ${session.named_by_user}, created_at = ${millis(session.created_at)},
        forked_from_session_id = ${source}, forked_before_invocation_id = ${source ? session.forked_before_invocation_id : null}
      WHERE id = ${(row as SessionRow).id} RETURNING *`);
    return { archiveId: session.id, row: done as SessionRow };
  });
  context.sources.set(imported.archiveId, imported.row.id);
  return summary(imported.row);
}
