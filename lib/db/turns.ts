/**
 * The "turn running" lock, as a lease on the session row: whichever app instance runs a turn renews
 * it; if that instance dies the lease expires and the session frees itself (docs/semantics.md, "Turns").
 */

import { sql } from "drizzle-orm";
import { config } from "@/lib/config";
import type { AdkEvent } from "@/lib/session/types";
import type { Task } from "@/lib/task/types";
import { getDb } from "./client";
import type { Executor } from "./database";
import { appendEventsTx } from "./events";
import { parseJson, runningTaskId, type SessionRow } from "./rows";
import { refuseWhileBusy, requireSession } from "./sessions";
import { sessionOfTask } from "./tasks";

/** A turn holds its session this long past its last renewal (renewals come four times as often). */
export const leaseMs = () => config().turnLeaseMs;

const INTERRUPTED = "Interrupted: the server running this turn stopped before it finished.";

/** The session's columns once no turn holds it. */
export const RELEASED = sql`turn_task_id = NULL, turn_owner = NULL, turn_lease_until = NULL, turn_cancel = ${false}`;

/** Ends a turn whose instance died: an interrupted final event, the task canceled, the lease cleared. */
async function closeAbandoned(tx: Executor, row: SessionRow) {
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

/** Extends the turn's lease. `held: false` means another instance has taken the session: stop writing. */
export async function renewTurn(sessionId: string, taskId: string): Promise<{ held: boolean; cancel: boolean }> {
  const db = await getDb();
  const row = await db.one<{ turn_cancel: boolean | number }>(sql`
    UPDATE sessions SET turn_lease_until = ${Date.now() + leaseMs()}
    WHERE id = ${sessionId} AND turn_task_id = ${taskId} RETURNING turn_cancel`);
  return { held: Boolean(row), cancel: Boolean(row?.turn_cancel) };
}

/** Where a task's turn runs, if it is running: the session and the instance holding it. */
export async function runningTurnOf(userId: string, taskId: string): Promise<{ sessionId: string; owner: string } | null> {
  const db = await getDb();
  const row = await db.read((tx) => sessionOfTask(tx, userId, taskId));
  return runningTaskId(row) === taskId ? { sessionId: row.id, owner: row.turn_owner ?? "" } : null;
}

/** Asks the instance running a task to stop it (it sees the flag on its next renewal or notification). */
export async function requestCancel(sessionId: string, taskId: string): Promise<boolean> {
  const db = await getDb();
  return (await db.run(sql`UPDATE sessions SET turn_cancel = ${true} WHERE id = ${sessionId} AND turn_task_id = ${taskId}`)) > 0;
}

/** Closes every turn whose lease expired (its instance crashed): the sessions are free again. Returns their task ids. */
export async function reapAbandonedTurns(): Promise<string[]> {
  const db = await getDb();
  const expired = await db.all<{ id: string; turn_task_id: string }>(sql`
    SELECT id, turn_task_id FROM sessions WHERE turn_task_id IS NOT NULL AND turn_lease_until < ${Date.now()}`);
  const reaped: string[] = [];
  for (const { id, turn_task_id } of expired) {
    await db.write(async (tx) => {
      const row = await tx.one<SessionRow>(sql`SELECT * FROM sessions WHERE id = ${id} ${tx.dialect.forUpdate}`);
      if (row?.turn_task_id === turn_task_id && !runningTaskId(row)) {
        await closeAbandoned(tx, row);
        reaped.push(turn_task_id);
      }
    });
  }
  return reaped;
}
