/**
 * Forks (docs/semantics.md): a fork shares its source's log below the boundary instead of copying it
 * (lib/db/log.ts), so its cost does not grow with the chat. Deleting a chat that forks still share
 * first gives each of them its own copy of the shared rows.
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { config } from "@/lib/config";
import { QuotaExceededError } from "@/lib/errors";
import { parseState } from "@/lib/session/state";
import { tailOf } from "@/lib/session/versions";
import { copyArtifacts } from "./artifacts";
import { getDb } from "./client";
import { type Executor, inBatches, typedValues } from "./database";
import { markerLinks, requireBoundary } from "./layout";
import { eventIdIn, inheritedBelow, inPiece, inPieces, logOf, type Piece, sharedTaskIdPrefix } from "./log";
import { recordedArtifacts } from "./rewind";
import type { SessionRow } from "./rows";
import { sessionRecord } from "./sessions";
import { stateBefore } from "./state";
import { claimSession } from "./turns";
import type { SessionRecord } from "./types";
import { lockUser, touchUser } from "./users";

/** A new session from the source as it was before `invocationId` (or all of it: "Duplicate"). */
export async function forkSession(
  userId: string,
  sessionId: string,
  input: { invocationId?: string; name?: string } = {},
): Promise<SessionRecord> {
  const db = await getDb();
  return db.write(async (tx) => {
    const source = await claimSession(tx, userId, sessionId);
    await lockUser(tx, userId);
    const count = await tx.one<{ n: number }>(sql`SELECT COUNT(*) AS n FROM sessions WHERE user_id = ${userId}`);
    if (Number(count?.n) >= config().limits.sessions) throw new QuotaExceededError(`more than ${config().limits.sessions} chats`);
    const log = logOf(source);
    const boundary = input.invocationId ? await requireBoundary(tx, log, input.invocationId) : source.last_seq + 1;
    // From now on the source's rows below the boundary are the fork's too: they never change again.
    await tx.run(sql`UPDATE sessions SET shared_until = ${boundary - 1} WHERE id = ${source.id} AND shared_until < ${boundary - 1}`);
    const state = input.invocationId ? await stateBefore(tx, source, boundary) : parseState(source.state);
    const inherited = inheritedBelow(log, boundary);
    const id = randomUUID();
    const now = Date.now();
    const row = (await tx.one<SessionRow>(sql`
      INSERT INTO sessions (id, user_id, agent, name, named_by_user, state, initial_state, last_seq, tail_seq,
        forked_from_session_id, forked_before_invocation_id, inherited, created_at, updated_at)
      VALUES (${id}, ${userId}, ${source.agent}, ${input.name?.trim() || `Fork of ${source.name}`}, ${true}, ${JSON.stringify(state)},
        ${source.initial_state}, ${boundary - 1}, 0, ${source.id}, ${input.invocationId ?? null},
        ${inherited.length ? JSON.stringify(inherited) : null}, ${now}, ${now})
      RETURNING *`)) as SessionRow;
    // The quota counts a fork's shared events as if copied: deleting the source may copy them (unshare).
    const bytes = await tx.one<{ n: number | null }>(sql`
      SELECT SUM(${tx.dialect.byteLength(sql`data`)}) AS n FROM events WHERE ${inPieces(inherited)}`);
    const eventBytes = Number(bytes?.n ?? 0);
    const versions = input.invocationId ? (await recordedArtifacts(tx, source, boundary)).before : null;
    const fileBytes = await copyArtifacts(tx, source.id, id, versions);
    const activity = await touchUser(tx, userId, eventBytes + fileBytes);
    const tail = tailOf(boundary - 1, await markerLinks(tx, logOf(row)));
    const forked = await tx.one<SessionRow>(sql`
      UPDATE sessions SET stored_bytes = ${eventBytes + fileBytes}, activity = ${activity}, tail_seq = ${tail} WHERE id = ${id}
      RETURNING *`);
    return sessionRecord(tx, forked as SessionRow);
  });
}

/** Copies the rows of `piece` (another session's) into `row`'s session under the ids the fork shows for them. */
async function copyPiece(tx: Executor, row: SessionRow, piece: Piece) {
  const log = logOf(row);
  const ids = await tx.all<{ seq: number; id: string }>(sql`SELECT seq, id FROM events WHERE ${inPiece(piece)}`);
  for (const batch of inBatches(ids)) {
    const shown = typedValues(
      batch.map((e) => [e.seq, eventIdIn(log, piece.session, e.id)]),
      ["INTEGER", "TEXT"],
    );
    await tx.run(sql`
      WITH shown (seq, id) AS (VALUES ${shown})
      INSERT INTO events (session_id, seq, id, invocation_id, author, timestamp, data, state_delta, artifact_delta, marker_parent)
      SELECT ${row.id}, e.seq, shown.id, e.invocation_id, e.author, e.timestamp, e.data, e.state_delta, e.artifact_delta, e.marker_parent
      FROM shown JOIN events e ON e.session_id = ${piece.session} AND e.seq = shown.seq`);
  }
  // A copied task keeps the id the fork showed for it; a retry in the fork is a new send (no message id).
  await tx.run(sql`
    INSERT INTO invocations (session_id, invocation_id, first_seq, last_seq, after_invocation_id, depth, is_marker, task_id, message_id, task)
    SELECT ${row.id}, invocation_id, first_seq, last_seq, after_invocation_id, depth, is_marker,
      CASE WHEN task_id IS NULL THEN NULL ELSE ${sharedTaskIdPrefix(log)} || task_id END, NULL, task
    FROM invocations WHERE ${inPiece(piece, "first_seq")}`);
  await tx.run(sql`
    INSERT INTO state_checkpoints (session_id, seq, state) SELECT ${row.id}, seq, state FROM state_checkpoints WHERE ${inPiece(piece)}`);
}

const shares = (row: SessionRow, sessionId: string) => row.id !== sessionId && logOf(row).pieces.some((p) => p.session === sessionId);

/**
 * The user's chats that share rows of `sessionId`, each locked (PostgreSQL) before anything takes the
 * user's row, the order every write keeps. A fork made meanwhile needs the lock of a chat already
 * found, so scanning again until nothing new turns up finds them all.
 */
async function lockSharing(tx: Executor, userId: string, sessionId: string): Promise<SessionRow[]> {
  const locked = new Map<string, SessionRow>();
  for (;;) {
    const found = (await tx.all<SessionRow>(sql`SELECT * FROM sessions WHERE user_id = ${userId} AND inherited IS NOT NULL`))
      .filter((r) => shares(r, sessionId) && !locked.has(r.id))
      .sort((a, b) => a.id.localeCompare(b.id));
    if (found.length === 0) return [...locked.values()];
    for (const { id } of found) {
      const row = await tx.one<SessionRow>(sql`SELECT * FROM sessions WHERE id = ${id} ${tx.dialect.forUpdate}`);
      if (row && shares(row, sessionId)) locked.set(id, row);
    }
  }
}

/** Before `sessionId` is deleted: every chat of the user that shares rows of it gets its own copy of them. */
export async function unshare(tx: Executor, userId: string, sessionId: string) {
  for (const row of await lockSharing(tx, userId, sessionId)) {
    const pieces = logOf(row).pieces.slice(0, -1);
    for (const piece of pieces) if (piece.session === sessionId) await copyPiece(tx, row, piece);
    const inherited = pieces.map((p) => (p.session === sessionId ? { ...p, session: row.id } : p));
    await tx.run(sql`UPDATE sessions SET inherited = ${JSON.stringify(inherited)} WHERE id = ${row.id}`);
  }
}
