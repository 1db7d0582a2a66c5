/**
 * The "turn running" lock, as a lease on the session row: whichever app instance runs a turn renews
 * it; if that instance dies the lease expires and the session frees itself (docs/semantics.md, "Turns").
 */

import { sql } from "drizzle-orm";
import type { Task } from "@/lib/a2a/types";
import { config } from "@/lib/config";
import { QuotaExceededError } from "@/lib/errors";
import type { RewindReason } from "@/lib/session/rewind";
import type { AdkEvent } from "@/lib/session/types";
import { getDb } from "./client";
import type { Executor } from "./database";
import { appendEventsTx } from "./events";
import { rewindTx } from "./rewind";
import { parseJson, runningTaskId, type SessionRow } from "./rows";
import { refuseWhileBusy, requireSession } from "./sessions";
import { saveTaskTx, sessionOfTask, taskForMessage } from "./tasks";
import { lockUser } from "./users";

/** A turn holds its session this long past its last renewal (renewals come four times as often). */
export const leaseMs = () => config().turnLeaseMs;

const INTERRUPTED = "Interrupted: the server running this turn stopped before it finished.";

/** The session's columns once no turn holds it. */
const RELEASED = sql`turn_task_id = NULL, turn_owner = NULL, turn_lease_until = NULL, turn_cancel = ${false}`;

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
    await appendEventsTx(tx, row, [ending]);
    const status = { state: "canceled", timestamp: new Date(now).toISOString() };
    await tx.run(sql`UPDATE invocations SET task = ${JSON.stringify({ ...stored, status })} WHERE task_id = ${row.turn_task_id}`);
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
async function claimRow(tx: Executor, row: SessionRow, turn?: string): Promise<SessionRow> {
  if (turn === undefined && row.turn_task_id && !runningTaskId(row)) {
    await closeAbandoned(tx, row);
    row = await requireSession(tx, row.user_id, row.id, true);
  }
  refuseWhileBusy(row, turn);
  return row;
}

/**
 * Starts a turn in one transaction: a send that repeats an A2A `messageId` gets the task it already
 * started; otherwise the session must be free (409) and the user under the concurrent-turn quota
 * (429), then the rewind it asks for (edit, regenerate), the user's event, the task and the lease are
 * stored together.
 */
export async function beginTurn(
  userId: string,
  sessionId: string,
  input: {
    task: Task;
    userEvent: AdkEvent;
    owner: string;
    messageId?: string;
    rewindBefore?: { invocationId: string; reason: RewindReason };
  },
): Promise<{ existing: Task } | { event: AdkEvent }> {
  const db = await getDb();
  return db.write(async (tx) => {
    const owned = await requireSession(tx, userId, sessionId, true);
    if (input.messageId) {
      const existing = await taskForMessage(tx, owned, input.messageId);
      if (existing) return { existing };
    }
    let row = await claimRow(tx, owned);
    await lockUser(tx, userId);
    const now = Date.now();
    const running = await tx.one<{ n: number }>(sql`
      SELECT COUNT(*) AS n FROM sessions WHERE user_id = ${userId} AND turn_task_id IS NOT NULL AND turn_lease_until > ${now}`);
    const limit = config().limits.concurrentTurns;
    if (Number(running?.n) >= limit) throw new QuotaExceededError(`more than ${limit} turns running at once`);
    // Edit & resend and Regenerate: the rewind and the new turn commit together, or neither does.
    if (input.rewindBefore) {
      await rewindTx(tx, row, input.rewindBefore.invocationId, input.rewindBefore.reason);
      row = await requireSession(tx, userId, sessionId, true);
    }
    const lease = sql`turn_task_id = ${input.task.id}, turn_owner = ${input.owner}, turn_lease_until = ${now + leaseMs()}, turn_cancel = ${false}`;
    const [event] = await appendEventsTx(tx, row, [input.userEvent], {
      set: lease,
      task: { task: input.task, messageId: input.messageId },
    });
    return { event };
  });
}

/** Extends the turn's lease. `held: false` means another instance has taken the session: stop writing. */
export async function renewTurn(sessionId: string, taskId: string): Promise<{ held: boolean; cancel: boolean }> {
  const db = await getDb();
  const row = await db.one<{ turn_cancel: boolean | number }>(sql`
    UPDATE sessions SET turn_lease_until = ${Date.now() + leaseMs()}
    WHERE id = ${sessionId} AND turn_task_id = ${taskId} RETURNING turn_cancel`);
  return { held: Boolean(row), cancel: Boolean(row?.turn_cancel) };
}

/** Stores the turn's last events (usually its reply), the final task, and releases the session, together. Resolves with the events stored. */
export async function endTurn(userId: string, sessionId: string, task: Task, events: AdkEvent[] = []): Promise<AdkEvent[]> {
  const db = await getDb();
  return db.write(async (tx) => {
    const row = await claimSession(tx, userId, sessionId, task.id);
    const stored = events.length > 0 ? await appendEventsTx(tx, row, events, { set: RELEASED }) : [];
    await saveTaskTx(tx, row, task);
    if (events.length === 0) await tx.run(sql`UPDATE sessions SET ${RELEASED} WHERE id = ${row.id}`);
    return stored;
  });
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
