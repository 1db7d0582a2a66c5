/** A fork's rows: copies of the pieces it reads no more (lib/db/tx/log.ts), and a chat's removal. */

import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { forkName } from "@/lib/session/names";
import { parseState } from "@/lib/session/state";
import { tailOf } from "@/lib/session/versions";
import type { Task } from "@/lib/task/types";
import { type Executor, inBatches, typedValues } from "../database";
import { parseJson, type SessionRow } from "../rows";
import type { SessionRecord } from "../types";
import { copyArtifacts } from "./artifacts";
import { piecesBytes, sessionBytes } from "./bytes";
import { claimSession } from "./claim";
import { markerLinks, requireBoundary } from "./layout";
import {
  eventIdIn,
  flatten,
  givenTaskIdSql,
  inheritedBelow,
  inheritedTaskIdPrefix,
  inPiece,
  inPieces,
  joined,
  type Log,
  logOf,
  ownFrom,
  type Piece,
} from "./log";
import { recordedArtifacts } from "./rewind";
import { indexStoredRows } from "./search-index";
import { liveOf, roomForChat, sessionRecord } from "./sessions";
import { stateBefore } from "./state";
import { copiedStatus, waitingTask } from "./tasks";
import { touchUser } from "./users";

/** Copies the rows of `piece` (another session's) into the fork `forkId` under the ids the fork shows for them, indexed as the fork's. */
async function copyPiece(tx: Executor, forkId: string, userId: string, piece: Piece) {
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
      depth, is_marker, CASE WHEN task_id IS NULL THEN NULL ELSE ${inheritedTaskIdPrefix(log)} || ${givenTaskIdSql(piece.session)} END, NULL, task
    FROM invocations WHERE ${inPiece(piece, "first_seq")}`);
  await tx.run(sql`
    INSERT INTO state_checkpoints (session_id, seq, state) SELECT ${forkId}, seq, state FROM state_checkpoints WHERE ${inPiece(piece)}`);
}

/**
 * The first seq of the source's rows below `boundary` that a fork must copy instead of inheriting (`boundary` when it
 * inherits them all): a turn waiting for the user's decision, rewound or not (an Undo makes it the chat's last again),
 * would be frozen in the source by inheriting, since inherited rows never change. From its first event on, then, or from
 * the first event of any invocation with an event there, so each invocation stays stored in one place.
 */
async function firstCopied(tx: Executor, source: SessionRow, log: Log, boundary: number): Promise<number> {
  // Only the source's own rows: those it reads of other chats are inherited already, and never wait.
  const waiting = await tx.one<{ first_seq: number }>(sql`
    SELECT first_seq FROM invocations
    WHERE session_id = ${source.id} AND first_seq >= ${ownFrom(log)} AND first_seq < ${boundary} AND ${waitingTask(tx)}
    ORDER BY first_seq LIMIT 1`);
  let from = waiting ? Number(waiting.first_seq) : boundary;
  while (from < boundary) {
    const earliest = await tx.one<{ seq: number | null }>(sql`
      SELECT MIN(i.first_seq) AS seq FROM events e JOIN invocations i ON i.session_id = e.session_id AND i.invocation_id = e.invocation_id
      WHERE e.session_id = ${source.id} AND e.seq >= ${from} AND e.seq < ${boundary}`);
    if (Number(earliest?.seq ?? from) >= from) break;
    from = Number(earliest?.seq);
  }
  return from;
}

/** The source's rows of `piece` as the fork's own: copied as `copyPiece` does, each waiting turn canceled (a copy never waits). */
async function copyOwn(tx: Executor, forkId: string, userId: string, piece: Piece) {
  await copyPiece(tx, forkId, userId, piece);
  const waiting = await tx.all<{ invocation_id: string; task: string }>(sql`
    SELECT invocation_id, task FROM invocations WHERE session_id = ${forkId} AND first_seq >= ${piece.from} AND ${waitingTask(tx)}`);
  for (const w of waiting) {
    const stored = parseJson<Pick<Task, "status">>(w.task);
    await tx.run(sql`
      UPDATE invocations SET task = ${JSON.stringify({ ...stored, status: copiedStatus(stored.status) })}
      WHERE session_id = ${forkId} AND invocation_id = ${w.invocation_id}`);
  }
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

/** A fork of the user's chat before `input.invocationId` (or of all of it): its pieces, state, files and bytes. */
export async function forkTx(
  tx: Executor,
  userId: string,
  sessionId: string,
  input: { invocationId?: string; name?: string },
): Promise<SessionRecord> {
  const source = await claimSession(tx, userId, sessionId);
  await tx.batch([roomForChat(tx.dialect, userId)]);
  const log = logOf(source);
  const boundary = input.invocationId ? await requireBoundary(tx, log, input.invocationId) : source.last_seq + 1;
  const copyFrom = await firstCopied(tx, source, log, boundary);
  // From now on the source's rows below that are the fork's too: they never change again.
  await tx.run(sql`UPDATE sessions SET shared_until = ${copyFrom - 1} WHERE id = ${source.id} AND shared_until < ${copyFrom - 1}`);
  const state = input.invocationId ? await stateBefore(tx, source, boundary) : parseState(source.state);
  const id = randomUUID();
  const { pieces: inherited, copy } = flatten(inheritedBelow(log, copyFrom), id);
  const now = Date.now();
  const row = (await tx.one<SessionRow>(sql`
    INSERT INTO sessions (id, user_id, agent, name, named_by_user, state, initial_state, last_seq, tail_seq,
      forked_from_session_id, forked_before_invocation_id, inherited, created_at, updated_at)
    VALUES (${id}, ${userId}, ${source.agent}, ${input.name?.trim() || forkName(source.name)}, ${true}, ${JSON.stringify(state)},
      ${source.initial_state}, ${boundary - 1}, 0, ${source.id}, ${input.invocationId ?? null},
      ${inherited.length ? JSON.stringify(inherited) : null}, ${now}, ${now})
    RETURNING *`)) as SessionRow;
  for (const piece of copy) await copyPiece(tx, id, userId, piece);
  const own: Piece = { session: id, from: copyFrom, to: boundary - 1 };
  if (copyFrom < boundary) await copyOwn(tx, id, userId, { ...own, session: source.id });
  // A fork is charged for the rows it reads of other chats as if copied: they stay on disk while it does.
  const versions = input.invocationId ? (await recordedArtifacts(tx, source, boundary)).before : null;
  const bytes =
    sessionBytes(row.state, row.initial_state, row.inherited) +
    (await piecesBytes(tx, copyFrom < boundary ? [...inherited, own] : inherited)) +
    (await copyArtifacts(tx, source.id, id, versions));
  const activity = await touchUser(tx, userId, bytes);
  const tail = tailOf(boundary - 1, await markerLinks(tx, logOf(row)));
  const forked = await tx.one<SessionRow>(sql`
    UPDATE sessions SET stored_bytes = ${bytes}, activity = ${activity}, tail_seq = ${tail} WHERE id = ${id}
    RETURNING *`);
  return sessionRecord(tx, forked as SessionRow);
}
