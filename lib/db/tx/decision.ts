/**
 * The user's decision on calls a turn paused for (docs/semantics.md, "Tools"): taken once, whatever the number
 * of tabs, instances or A2A clients deciding at the same moment, because the session's row lock serialises
 * them and only the first finds its task still waiting.
 */
import { sql } from "drizzle-orm";
import { ApprovalPendingError, NotFoundError, WrongAgentError } from "@/lib/errors";
import { parseState } from "@/lib/session/state";
import { type PendingCall, pendingCalls } from "@/lib/session/tools";
import type { AdkEvent, State } from "@/lib/session/types";
import type { Task } from "@/lib/task/types";
import type { Executor } from "../database";
import { parseJson, runningTaskId, type SessionRow } from "../rows";
import { appendEventsTx, type LogCursor } from "./append";
import { closeAbandoned, leaseFor } from "./claim";
import { toEvent } from "./history";
import { requireSession } from "./sessions";
import { findTask, wholeTask } from "./task-reads";
import { checkTokenBudget, checkTurnsAtOnce, tokensToday } from "./tokens";

export type Claimed =
  | { asIs: Task; running: boolean }
  | { sessionId: string; userEvent: AdkEvent; pending: PendingCall[]; decision: AdkEvent; task: Task; state: State; cursor?: LogCursor };

/**
 * Claims a waiting task for its decision, in the caller's transaction: with the session locked, the task must
 * still wait (`input-required`, its confirmations unanswered), be the chat's own and not shared with a fork,
 * and end the chat's effective history (no rewind hid it, no turn came after it); then the decision event
 * `decide` builds is appended, the task stored as `task(stored)` and the session's lease taken, together.
 * Anything else answers the task as it is, changing nothing: a repeated, late or concurrent decision.
 */
export async function claimDecisionTx(
  tx: Executor,
  userId: string,
  taskId: string,
  input: {
    agent: string;
    owner: string;
    decide: (pending: PendingCall[], state: State, invocationId: string) => AdkEvent;
    working: (stored: Task) => Task;
  },
): Promise<Claimed> {
  const found = await findTask(tx, userId, taskId);
  if (!found) throw new NotFoundError("Task not found");
  let row: SessionRow = await requireSession(tx, userId, found.session.id, true);
  if (row.agent !== input.agent) throw new WrongAgentError(row.id, row.agent);
  if (row.turn_task_id && !runningTaskId(row)) {
    await closeAbandoned(tx, row);
    row = await requireSession(tx, userId, row.id, true);
  }
  // Read again under the lock: a decision that committed meanwhile has changed them.
  const invocation = await tx.one<{ task: string; first_seq: number; last_seq: number }>(sql`
    SELECT task, first_seq, last_seq FROM invocations WHERE session_id = ${row.id} AND task_id = ${found.row.id}`);
  const asIs = async () => ({ asIs: await wholeTask(tx, { ...found, session: row }), running: runningTaskId(row) === found.row.id });
  const stored = invocation && parseJson<Pick<Task, "status">>(invocation.task);
  const waits =
    invocation &&
    stored?.status.state === "input-required" &&
    !runningTaskId(row) &&
    invocation.first_seq > row.shared_until &&
    Number(invocation.last_seq) === Number(row.tail_seq);
  if (!waits) return asIs();
  const events = (
    await tx.all<{ id: string; data: string }>(sql`
      SELECT id, data FROM events WHERE session_id = ${row.id} AND seq BETWEEN ${invocation.first_seq} AND ${invocation.last_seq}
      ORDER BY seq`)
  )
    .map(toEvent)
    .filter((e) => e.invocation_id === found.row.invocation_id);
  const pending = pendingCalls(events);
  const userEvent = events.find((e) => e.author === "user");
  if (pending.length === 0 || !userEvent) return asIs();
  checkTurnsAtOnce(
    await tx.one<{ n: number }>(sql`
      SELECT COUNT(*) AS n FROM sessions WHERE user_id = ${userId} AND turn_task_id IS NOT NULL AND turn_lease_until > ${Date.now()}`),
  );
  // A resumed turn calls the model again: past the day's token budget it is refused like a new one.
  const [today] = await tx.batch([tokensToday(userId)]);
  checkTokenBudget(today);
  const state = parseState(row.state);
  const decision = input.decide(pending, state, found.row.invocation_id);
  const task = input.working(await wholeTask(tx, { ...found, session: row }));
  const appended = await appendEventsTx(tx, row, [decision], { set: leaseFor(task.id, input.owner), task: { task } });
  // The chat's state as the resumed turn begins: the decision's delta is all that changed it.
  const resumed = { ...state, ...(decision.actions?.state_delta ?? {}) } as State;
  return { sessionId: row.id, userEvent, pending, decision: appended.events[0], task, state: resumed, cursor: appended.cursor };
}

/**
 * A new turn is refused while the chat's last turn waits for the user's decision (409 `approval_pending`): its
 * calls would otherwise stay unanswered in the history the model reads. A waiting turn a rewind hid, or one a
 * fork shares (it can never be decided there), does not count.
 */
export async function refuseWhileWaiting(tx: Executor, row: SessionRow) {
  // The invocation holding the tail: the last one to begin at or before it (one probe of the session's index).
  const tail = await tx.one<{ task: string | null; first_seq: number; last_seq: number }>(sql`
    SELECT task, first_seq, last_seq FROM invocations WHERE session_id = ${row.id} AND first_seq <= ${row.tail_seq}
    ORDER BY first_seq DESC LIMIT 1`);
  const own = tail?.task && Number(tail.last_seq) === Number(row.tail_seq) && tail.first_seq > row.shared_until;
  if (own && parseJson<Pick<Task, "status">>(tail.task as string).status.state === "input-required") throw new ApprovalPendingError();
}
