/** Storing A2A tasks on their invocations' rows, and finding the task a session or message names. */
import { type SQL, sql } from "drizzle-orm";
import { NotFoundError, ValidationError } from "@/lib/errors";
import { invocationIdOf } from "@/lib/task/metadata";
import type { Task } from "@/lib/task/types";
import { type Executor, one, run } from "../database";
import type { SessionRow } from "../rows";
import { taskBytes } from "./bytes";
import { logOf } from "./log";
import { assemble, findTask, TASK_COLUMNS, type TaskRow } from "./task-reads";
import { chargeInBatch } from "./users";

function storedForm(task: Task): string {
  return JSON.stringify({ status: task.status, metadata: task.metadata, ...(task.artifacts ? { artifacts: task.artifacts } : {}) });
}

const taskInvocation = (task: Task) => {
  const invocationId = invocationIdOf(task);
  if (!invocationId) throw new ValidationError("Task metadata needs kagent_invocation_id");
  return invocationId;
};

/** Stores `task` on its invocation's row when that invocation has begun, has no other task and no fork shares it. */
export const taskUpdate = (task: Task, messageId: string | null, session: { from?: SQL; id: SQL; sharedUntil: SQL }) => sql`
  UPDATE invocations SET task_id = ${task.id}, task = ${storedForm(task)}, message_id = COALESCE(message_id, ${messageId})
  ${session.from ?? sql``}
  WHERE session_id = ${session.id} AND invocation_id = ${taskInvocation(task)} AND (task_id IS NULL OR task_id = ${task.id})
    AND first_seq > ${session.sharedUntil}`;

/** A new task's columns (task_id, task, message_id), for the insert of the invocation it begins with, and their bytes. */
export function taskColumns(task: Task, messageId?: string) {
  const stored = storedForm(task);
  return {
    invocationId: taskInvocation(task),
    values: sql`${task.id}, ${stored}, ${messageId ?? null}`,
    bytes: taskBytes(task, stored, messageId),
  };
}

export const taskRefused = (task: Task) =>
  new ValidationError(`Task ${task.id}: invocation ${taskInvocation(task)} has no events or another task, or a fork shares it`);

/**
 * Creates or updates a task inside the caller's transaction; its invocation must have begun. The caller
 * charges its bytes (`taskColumns(...).bytes`), with the append it goes with.
 */
export async function storeTaskTx(tx: Executor, row: Pick<SessionRow, "id" | "shared_until">, task: Task, messageId?: string) {
  const [saved] = await tx.batch([storeTask(row, task, messageId)]);
  if (saved === 0) throw taskRefused(task);
}

/** The statement `storeTaskTx` sends: it changes no row when the task is refused. */
export const storeTask = (row: Pick<SessionRow, "id" | "shared_until">, task: Task, messageId?: string) =>
  run(taskUpdate(task, messageId ?? null, { id: sql`${row.id}`, sharedUntil: sql`${row.shared_until}` }));

/** `storeTaskTx`, its bytes charged to the chat and its owner. */
export async function saveTaskTx(tx: Executor, row: Pick<SessionRow, "id" | "user_id" | "shared_until">, task: Task, messageId?: string) {
  const [saved] = await tx.batch([storeTask(row, task, messageId), ...chargeInBatch(row, taskColumns(task, messageId).bytes)]);
  if (saved === 0) throw taskRefused(task);
}

/** The session of the user's task `taskId` (404 when there is none). */
export async function sessionOfTask(tx: Executor, userId: string, taskId: string): Promise<SessionRow> {
  const found = await findTask(tx, userId, taskId);
  if (!found) throw new NotFoundError("Task not found");
  return found.session;
}

/** The row of the task a send with this A2A messageId started in the session, if any (a retried send): a statement for a batch. */
export const taskRowOfMessage = (sessionId: string, messageId: string) =>
  one<TaskRow>(sql`
    SELECT ${TASK_COLUMNS} FROM invocations i WHERE i.session_id = ${sessionId} AND i.message_id = ${messageId} AND i.task IS NOT NULL`);

/** The task `taskRowOfMessage` found, whole; null when it found none. */
export async function taskOfMessage(tx: Executor, session: SessionRow, found: TaskRow | undefined): Promise<Task | null> {
  return found ? (await assemble(tx, logOf(session), [found]))[0] : null;
}

/**
 * A task's status in a copy of its chat (an import, a shared chat's Continue): a turn that waited for a decision
 * is canceled there, so its call can never be approved and run a second time in another chat (docs/semantics.md, "Tools").
 */
export const copiedStatus = (status: Task["status"]): Task["status"] =>
  status.state === "input-required" ? { state: "canceled", timestamp: status.timestamp } : status;

/**
 * Rows of `invocations` whose task waits for the user's decision: the predicate of the partial index
 * `invocations_waiting` (lib/db/schema), word for word, so a query that says it reads that small index.
 */
export const waitingTask = (tx: Executor) =>
  sql.raw(
    tx.dialect.name === "sqlite"
      ? "json_extract(task, '$.status.state') = 'input-required'"
      : "(CAST(task AS jsonb) #>> '{status,state}') = 'input-required'",
  );
