/**
 * A chat an upload writes in steps (lib/db/import-chat.ts). It begins hidden under a lease that each step renews
 * (`import_lease_until`: nobody's reads show the chat while it is set); its last step clears the lease and so
 * shows it. A failed import, or one whose lease has passed because its process died, is removed in bounded
 * parts, its bytes refunded to its owner with the last.
 */
import { sql } from "drizzle-orm";
import { AppError } from "@/lib/errors";
import { type Executor, run } from "../database";
import type { SessionRow } from "../rows";
import { releaseBlobs } from "./blobs";
import { createSessionTx } from "./sessions";
import { clockPast, freeActivity, lockUser } from "./users";

/** One step's writes to the chat being imported, `row` as it is when the step begins. */
export type ImportStep = (tx: Executor, row: SessionRow) => Promise<void>;

/** A chat to import in steps (lib/db/import-chat.ts runs them). */
export interface ChatImport {
  /** Makes the (hidden) chat: `beginImport`. */
  begin(tx: Executor, userId: string): Promise<SessionRow>;
  /** Made as they are needed: what happens between two steps (reading a file, say) happens outside any transaction. */
  steps: AsyncIterable<ImportStep>;
  /** Shows the chat: `finishImport`. */
  finish(tx: Executor, row: SessionRow): Promise<SessionRow>;
  /** Small enough for one transaction, and its steps read nothing but memory. */
  whole: boolean;
}

/** How long an import holds its chat past its last step: a step takes far less, a dead process's chat goes after this. */
export const IMPORT_LEASE_MS = 60_000;

/**
 * What one step of an import writes at most (a few milliseconds, a few tens on a loaded machine): bytes of
 * events and files (a larger file goes alone), records of an archive (its events appended together), turns and
 * rewinds of a ChatGPT conversation (each its own append, with its task).
 */
export const STEP_BYTES = 16 * 1024;
export const STEP_RECORDS = 50;
export const STEP_TURNS = 8;

/** Rows of a chat's log removed per part of a removal, and bytes of its files. */
const DROP_EVENTS = 2000;
const DROP_FILE_BYTES = 16 * 1024 * 1024;

/** A new chat for an import (within the chat quota), hidden until `finishImport`. */
export async function beginImport(tx: Executor, userId: string, input: Parameters<typeof createSessionTx>[2]): Promise<SessionRow> {
  const row = await createSessionTx(tx, userId, input);
  return (await tx.one<SessionRow>(sql`
    UPDATE sessions SET import_lease_until = ${Date.now() + IMPORT_LEASE_MS} WHERE id = ${row.id} RETURNING *`)) as SessionRow;
}

/** The chat being imported as it is now, locked, its lease renewed; refused once the import was given up. */
export async function resumeImport(tx: Executor, id: string): Promise<SessionRow> {
  const now = Date.now();
  const row = await tx.one<SessionRow>(sql`
    UPDATE sessions SET import_lease_until = ${now + IMPORT_LEASE_MS} WHERE id = ${id} AND import_lease_until >= ${now} RETURNING *`);
  if (!row) throw new AppError(503, "unavailable", "The import was given up (it stalled too long, or its chat was deleted): try again");
  return row;
}

/**
 * Shows the imported chat, with what only its end knows. It takes its place in the chat list by its own last
 * activity (`updated_at`, when the export says; never later than now), not by when it was imported: an
 * export's chats land under their own days, in their own order.
 */
export async function finishImport(
  tx: Executor,
  row: SessionRow,
  set: Partial<
    Pick<SessionRow, "name" | "named_by_user" | "created_at" | "updated_at" | "forked_from_session_id" | "forked_before_invocation_id">
  > = {},
): Promise<SessionRow> {
  const value = { ...row, ...set };
  const at = Math.min(set.updated_at ?? Date.now(), Date.now());
  await tx.batch([lockUser(tx.dialect, row.user_id)]);
  const activity = await freeActivity(tx, row.user_id, row.id, at);
  await tx.batch([clockPast(row.user_id, activity)]);
  return (await tx.one<SessionRow>(sql`
    UPDATE sessions SET import_lease_until = NULL, activity = ${activity}, updated_at = ${at}, name = ${value.name},
      named_by_user = ${Boolean(value.named_by_user)}, created_at = ${value.created_at}, forked_from_session_id = ${value.forked_from_session_id},
      forked_before_invocation_id = ${value.forked_before_invocation_id}
    WHERE id = ${row.id} RETURNING *`)) as SessionRow;
}

/**
 * Removes a bounded part of a chat whose import failed or died (its lease ends at once, so it can never be
 * resumed): the last events of its log with their invocations and checkpoints, then its files, then the chat,
 * its bytes refunded to its owner. Resolves true once it is gone.
 */
export async function dropImportPart(tx: Executor, id: string): Promise<boolean> {
  const row = await tx.one<SessionRow>(sql`
    UPDATE sessions SET import_lease_until = 0 WHERE id = ${id} AND import_lease_until IS NOT NULL RETURNING *`);
  if (!row) return true;
  const from = await tx.one<{ seq: number }>(sql`
    SELECT seq FROM events WHERE session_id = ${id} ORDER BY seq DESC LIMIT 1 OFFSET ${DROP_EVENTS - 1}`);
  const seq = from?.seq ?? 0;
  await tx.batch([
    run(sql`DELETE FROM events WHERE session_id = ${id} AND seq >= ${seq}`),
    run(sql`DELETE FROM invocations WHERE session_id = ${id} AND first_seq >= ${seq}`),
    run(sql`DELETE FROM state_checkpoints WHERE session_id = ${id} AND seq >= ${seq}`),
  ]);
  if (seq > 0) return false;
  const files = await tx.all<{ filename: string; version: number; size: number }>(sql`
    SELECT filename, version, size FROM artifacts WHERE scope = ${id} LIMIT 256`);
  let bytes = 0;
  for (const f of files) {
    if (bytes > 0 && bytes + Number(f.size) > DROP_FILE_BYTES) return false;
    bytes += Number(f.size) || 1;
    await tx.run(sql`DELETE FROM artifacts WHERE scope = ${id} AND filename = ${f.filename} AND version = ${f.version}`);
  }
  if (files.length > 0) return false;
  const gone = await tx.one<{ user_id: string; stored_bytes: number }>(
    sql`DELETE FROM sessions WHERE id = ${id} RETURNING user_id, stored_bytes`,
  );
  if (gone) {
    await tx.run(sql`UPDATE users SET stored_bytes = stored_bytes - ${gone.stored_bytes} WHERE id = ${gone.user_id}`);
    await releaseBlobs(tx, gone.user_id);
  }
  return true;
}
