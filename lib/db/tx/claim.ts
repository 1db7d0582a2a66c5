/** Claiming a session for a write: the owner check, the turn lease (docs/semantics.md, "Turns"), abandoned turns closed. */
import { sql } from "drizzle-orm";
import { config } from "@/lib/config";
import type { AdkEvent } from "@/lib/session/types";
import type { Task } from "@/lib/task/types";
import type { Executor } from "../database";
import { parseJson, runningTaskId, type SessionRow } from "../rows";
import { appendEventsTx } from "./append";
import { refuseWhileBusy, requireSession } from "./sessions";

/** A turn holds its session this long past its last renewal (renewals come four times as often). */
export const leaseMs = () => config().turnLeaseMs;

const INTERRUPTED = "Interrupted: the server running this turn stopped before it finished.";

/** The session's columns while `taskId`'s turn holds it from `owner`, the instance running it. */
export const leaseFor = (taskId: string, owner: string) =>
  sql`turn_task_id = ${taskId}, turn_owner = ${owner}, turn_lease_until = ${Date.now() + leaseMs()}, turn_cancel = ${false}`;

/** The session's columns once no turn holds it. */
export const RELEASED = sql`turn_task_id = NULL, turn_owner = NULL, turn_lease_until = NULL, turn_cancel = ${false}`;

/** Ends a turn whose instance died: an interrupted final event, the task canceled, the lease cleared. */
export async function closeAbandoned(tx: Executor, row: SessionRow) {
  const task = await tx.one<{ invocation_id: string; data: string; author: string }>(sql`
    SELECT invocation_id, task AS data, ${row.agent} AS author FROM invocations
    WHERE task_id = ${row.turn_task_id} AND session_id = ${row.id}`);
  if (task) {
    const stored = parseJson<Pick<Task, "status" | "metadata">>(task.data);
    const now = Date.now();
    const ending: AdkEvent = {
      id: crypto.randomUUID(),
      invocation_id: task.invocation_id,
      author: task.author,
      timestamp: now / 1000,
      actions: { state_delta: {}, artifact_delta: {} },
      interrupted: true,
      turn_complete: true,
      error_code: "INTERRUPTED",
      error_message: INTERRUPTED,
    };
    const status = { state: "canceled", timestamp: new Date(now).toISOString() };
    const canceled = JSON.stringify({ ...stored, status });
    await appendEventsTx(tx, row, [ending], { bytes: Buffer.byteLength(canceled) });
    await tx.run(sql`UPDATE invocations SET task = ${canceled} WHERE task_id = ${row.turn_task_id}`);
  }
  await tx.run(sql`UPDATE sessions SET ${RELEASED} WHERE id = ${row.id}`);
}

/**
 * The session, locked for a write: `userId` must own it (else 404, before anything else); a turn whose
 * instance died (lease expired) is closed first; then it must be free, or held by `turn`, the writer
 * itself (else 409).
 */
export async function claimSession(tx: Executor, userId: string, sessionId: string, turn?: string): Promise<SessionRow> {
  return claimRow(tx, await requireSession(tx, userId, sessionId, true), turn);
}

/** `claimSession` for a session row the caller has already read and locked. */
export async function claimRow(tx: Executor, row: SessionRow, turn?: string): Promise<SessionRow> {
  if (turn === undefined && row.turn_task_id && !runningTaskId(row)) {
    await closeAbandoned(tx, row);
    row = await requireSession(tx, row.user_id, row.id, true);
  }
  refuseWhileBusy(row, turn);
  return row;
}

/** Extends the turn's lease, one statement atomic on its own. `held: false`: another instance has taken the session. */
export async function renewLease(tx: Executor, sessionId: string, taskId: string): Promise<{ held: boolean; cancel: boolean }> {
  const row = await tx.one<{ turn_cancel: boolean | number }>(sql`
    UPDATE sessions SET turn_lease_until = ${Date.now() + leaseMs()}
    WHERE id = ${sessionId} AND turn_task_id = ${taskId} RETURNING turn_cancel`);
  return { held: Boolean(row), cancel: Boolean(row?.turn_cancel) };
}
