/** A fork's rows: copies of the pieces it reads no more (lib/db/tx/log.ts), and a chat's removal. */
import { sql } from "drizzle-orm";
import { type Executor, inBatches, typedValues } from "../database";
import type { SessionRow } from "../rows";
import { eventIdIn, inPiece, inPieces, joined, logOf, type Piece, sharedTaskIdPrefix } from "./log";
import { indexStoredRows } from "./search-index";
import { liveOf } from "./sessions";

/** Copies the rows of `piece` (another session's) into the fork `forkId` under the ids the fork shows for them, indexed as the fork's. */
export async function copyPiece(tx: Executor, forkId: string, userId: string, piece: Piece) {
  const log = { id: forkId, pieces: [] };
  const ids = await tx.all<{ seq: number; id: string }>(sql`SELECT seq, id FROM events WHERE ${inPiece(piece)}`);
  for (const batch of inBatches(ids)) {
    const shown = typedValues(
      batch.map((e) => [e.seq, eventIdIn(log, piece.session, e.id)]),
      ["INTEGER", "TEXT"],
    );
    await tx.run(sql`
      WITH shown (seq, id) AS (VALUES ${shown})
      INSERT INTO events (session_id, seq, id, invocation_id, author, timestamp, data, state_delta, artifact_delta, marker_parent)
      SELECT ${forkId}, e.seq, shown.id, e.invocation_id, e.author, e.timestamp, e.data, e.state_delta, e.artifact_delta, e.marker_parent
      FROM shown JOIN events e ON e.session_id = ${piece.session} AND e.seq = shown.seq`);
  }
  await indexStoredRows(tx, forkId, userId, piece);
  // A copied task keeps the id the fork shows for it; a retry in the fork is a new send (no message id).
  await tx.run(sql`
    INSERT INTO invocations (session_id, invocation_id, first_seq, last_seq, after_invocation_id, depth, is_marker, task_id, message_id, task)
    SELECT ${forkId}, invocation_id, first_seq, CASE WHEN last_seq > ${piece.to} THEN ${piece.to} ELSE last_seq END, after_invocation_id,
      depth, is_marker, CASE WHEN task_id IS NULL THEN NULL ELSE ${sharedTaskIdPrefix(log)} || task_id END, NULL, task
    FROM invocations WHERE ${inPiece(piece, "first_seq")}`);
  await tx.run(sql`
    INSERT INTO state_checkpoints (session_id, seq, state) SELECT ${forkId}, seq, state FROM state_checkpoints WHERE ${inPiece(piece)}`);
}

/**
 * What the user's live chats read of `sessionId`'s rows (their pieces of it). Only live chats count: a
 * fork lists every log it reads, so a deleted chat's own pieces are read by nobody.
 */
async function readByLiveChats(tx: Executor, userId: string, sessionId: string): Promise<Piece[]> {
  const readers = await tx.all<Pick<SessionRow, "id" | "inherited">>(sql`
    SELECT id, inherited FROM sessions WHERE ${liveOf(userId)} AND inherited LIKE ${`%${JSON.stringify(sessionId)}%`}`);
  return joined(readers.filter((r) => r.id !== sessionId).flatMap((r) => logOf(r).pieces.filter((p) => p.session === sessionId)));
}

/** A deleted chat keeps only the rows live chats read, so every row it holds is on some reader's quota; none read, it goes. */
async function keepOnly(tx: Executor, sessionId: string, read: Piece[]) {
  if (read.length === 0) {
    await tx.run(sql`DELETE FROM sessions WHERE id = ${sessionId}`);
    return;
  }
  const unread = (column: string) => sql`session_id = ${sessionId} AND NOT (${inPieces(read, column)})`;
  await tx.run(sql`DELETE FROM events WHERE ${unread("seq")}`);
  await tx.run(sql`DELETE FROM invocations WHERE ${unread("first_seq")}`);
  await tx.run(sql`DELETE FROM state_checkpoints WHERE ${unread("seq")}`);
}

/**
 * Deletes the user's chat `row` (claimed: no turn runs in it). When forks still read its rows it becomes a
 * tombstone instead: hidden everywhere, holding just those rows. Every tombstone it read from then keeps
 * only what the remaining live chats read, and goes when they read nothing of it.
 */
export async function removeSession(tx: Executor, row: SessionRow): Promise<void> {
  const read = await readByLiveChats(tx, row.user_id, row.id);
  if (read.length > 0) {
    await tx.run(sql`DELETE FROM artifacts WHERE scope = ${row.id}`);
    await tx.run(sql`DELETE FROM share_links WHERE session_id = ${row.id}`);
    await tx.run(sql`DELETE FROM version_labels WHERE session_id = ${row.id}`);
    await tx.run(
      sql`UPDATE sessions SET deleted_at = ${Date.now()}, state = '{}', initial_state = '{}', stored_bytes = 0 WHERE id = ${row.id}`,
    );
  }
  await keepOnly(tx, row.id, read);
  for (const id of new Set(logOf(row).pieces.map((p) => p.session))) {
    // Locked first: two chats deleted at once that read one tombstone cannot each see the other still there.
    const tombstone = await tx.one(sql`SELECT id FROM sessions WHERE id = ${id} AND deleted_at IS NOT NULL ${tx.dialect.forUpdate}`);
    if (tombstone) await keepOnly(tx, id, await readByLiveChats(tx, row.user_id, id));
  }
}
