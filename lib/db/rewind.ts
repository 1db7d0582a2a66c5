/** Rewind and fork (docs/semantics.md): each one transaction over the log, nothing deleted. */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Task } from "@/lib/a2a/types";
import { config } from "@/lib/config";
import { QuotaExceededError } from "@/lib/errors";
import { type RewindReason, recordedVersions, rewindArtifactPlan, rewindMarker, rewindStateDelta } from "@/lib/session/rewind";
import { parseState } from "@/lib/session/state";
import type { AdkEvent, ArtifactDelta } from "@/lib/session/types";
import { tailOf } from "@/lib/session/versions";
import { copyArtifacts, restoreArtifacts } from "./artifacts";
import { getDb } from "./client";
import { type Executor, newTimeOrderedUuid } from "./database";
import { appendEventsTx } from "./events";
import { markerLinks, requireBoundary } from "./layout";
import { parseJson, type SessionRow } from "./rows";
import { requireSession, sessionRecord } from "./sessions";
import { stateBefore } from "./state";
import { saveTaskTx, taskForMessage } from "./tasks";
import { claimSession } from "./turns";
import type { SessionRecord } from "./types";
import { lockUser, touchUser } from "./users";

/** Recorded artifact versions (session files) before `boundary` and overall. */
async function recordedArtifacts(tx: Executor, row: SessionRow, boundary: number) {
  const rows = await tx.all<{ seq: number; delta: string }>(sql`
    SELECT seq, artifact_delta AS delta FROM events WHERE session_id = ${row.id} AND artifact_delta IS NOT NULL ORDER BY seq`);
  const deltas = rows.map((r) => ({ seq: r.seq, delta: parseJson<ArtifactDelta>(r.delta) }));
  return {
    before: recordedVersions(deltas.filter((r) => r.seq < boundary).map((r) => r.delta)),
    current: recordedVersions(deltas.map((r) => r.delta)),
  };
}

/** Rewind before `invocationId` inside the caller's transaction: state and files back, one marker appended. */
export async function rewindTx(tx: Executor, row: SessionRow, invocationId: string, reason: RewindReason): Promise<AdkEvent> {
  const boundary = await requireBoundary(tx, row.id, invocationId);
  const stateDelta = rewindStateDelta(parseState(row.state), await stateBefore(tx, row, boundary));
  const recorded = await recordedArtifacts(tx, row, boundary);
  // File names are data: a name such as `__proto__` must stay an ordinary key.
  const artifactDelta: ArtifactDelta = Object.create(null);
  const plan = rewindArtifactPlan(recorded.current, recorded.before);
  const restored = await restoreArtifacts(tx, row, plan);
  for (const { filename } of plan) artifactDelta[filename] = restored.get(filename) as number;
  const [event] = await appendEventsTx(tx, row, [rewindMarker(invocationId, stateDelta, artifactDelta, reason)]);
  return event;
}

/** Restores session state and files to just before `invocationId` (a marker's id undoes that rewind). */
export async function rewindSession(userId: string, sessionId: string, invocationId: string, reason: RewindReason = "rewind") {
  const db = await getDb();
  return db.write(async (tx) => {
    const row = await claimSession(tx, userId, sessionId);
    const event = await rewindTx(tx, row, invocationId, reason);
    return { event, session: await sessionRecord(tx, await requireSession(tx, userId, sessionId)) };
  });
}

/**
 * A2A's rewind control message without text: the rewind and the task that answers it, stored with the
 * message's id in one transaction — so a retried message finds that task and rewinds nothing twice.
 * Resolves with the task's id.
 */
export async function rewindForMessage(userId: string, sessionId: string, invocationId: string, reason: RewindReason, messageId: string) {
  const db = await getDb();
  return db.write(async (tx) => {
    const existing = await taskForMessage(tx, (await requireSession(tx, userId, sessionId, true)).id, messageId);
    if (existing) return existing.id;
    const row = await claimSession(tx, userId, sessionId);
    const marker = await rewindTx(tx, row, invocationId, reason);
    const task: Task = {
      kind: "task",
      id: marker.invocation_id,
      contextId: sessionId,
      status: { state: "completed", timestamp: new Date().toISOString() },
      metadata: { kagent_invocation_id: marker.invocation_id, kagent_rewind_before_invocation_id: invocationId },
    };
    await saveTaskTx(tx, row, task, messageId);
    return task.id;
  });
}

/** Raw copy in order under new event ids (same seqs), with the invocations (tree and tasks) and state checkpoints. Returns bytes copied. */
async function copyLog(tx: Executor, from: string, to: string, boundary: number): Promise<number> {
  const { newUuid } = tx.dialect;
  await tx.run(sql`
    INSERT INTO events (session_id, seq, id, invocation_id, author, timestamp, data, state_delta, artifact_delta, marker_parent)
    SELECT ${to}, seq, ${newUuid}, invocation_id, author, timestamp, data, state_delta, artifact_delta, marker_parent
    FROM events WHERE session_id = ${from} AND seq < ${boundary}`);
  // Each copied task gets a new id (its history is the fork's copied events); a retry in the fork is a new send.
  await tx.run(sql`
    INSERT INTO invocations (session_id, invocation_id, first_seq, last_seq, after_invocation_id, depth, is_marker, task_id, message_id, task)
    SELECT ${to}, invocation_id, first_seq, last_seq, after_invocation_id, depth, is_marker,
      CASE WHEN task_id IS NULL THEN NULL ELSE ${newTimeOrderedUuid(tx.dialect)} END, NULL, task
    FROM invocations WHERE session_id = ${from} AND first_seq < ${boundary}`);
  await tx.run(sql`
    INSERT INTO state_checkpoints (session_id, seq, state)
    SELECT ${to}, seq, state FROM state_checkpoints WHERE session_id = ${from} AND seq < ${boundary}`);
  const bytes = await tx.one<{ n: number | null }>(sql`
    SELECT SUM(${tx.dialect.byteLength(sql`data`)}) AS n FROM events WHERE session_id = ${to}`);
  return Number(bytes?.n ?? 0);
}

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
    const boundary = input.invocationId ? await requireBoundary(tx, source.id, input.invocationId) : source.last_seq + 1;
    const state = input.invocationId ? await stateBefore(tx, source, boundary) : parseState(source.state);
    const id = randomUUID();
    const now = Date.now();
    await tx.run(sql`
      INSERT INTO sessions (id, user_id, agent, name, named_by_user, state, initial_state, last_seq, tail_seq,
        forked_from_session_id, forked_before_invocation_id, created_at, updated_at)
      VALUES (${id}, ${userId}, ${source.agent}, ${input.name?.trim() || `Fork of ${source.name}`}, ${true}, ${JSON.stringify(state)},
        ${source.initial_state}, ${boundary - 1}, 0, ${source.id}, ${input.invocationId ?? null}, ${now}, ${now})`);
    const eventBytes = await copyLog(tx, source.id, id, boundary);
    const versions = input.invocationId ? (await recordedArtifacts(tx, source, boundary)).before : null;
    const fileBytes = await copyArtifacts(tx, source.id, id, versions);
    const activity = await touchUser(tx, userId, eventBytes + fileBytes);
    await tx.run(sql`
      UPDATE sessions SET stored_bytes = ${eventBytes + fileBytes}, activity = ${activity},
        tail_seq = ${tailOf(boundary - 1, await markerLinks(tx, id))} WHERE id = ${id}`);
    return sessionRecord(tx, (await tx.one<SessionRow>(sql`SELECT * FROM sessions WHERE id = ${id}`)) as SessionRow);
  });
}
