/**
 * A2A tasks, one per invocation: the invocation's row keeps the task's id, status and metadata; its
 * history is read from the invocation's events, so a fork (which shows shared rows under new ids,
 * lib/db/tx/log.ts) needs no JSON rewriting and copies no task table.
 */

import { sql } from "drizzle-orm";
import { NotFoundError } from "@/lib/errors";
import type { Task } from "@/lib/task/types";
import { getDb } from "./connection";
import { chained, type Executor } from "./database";
import type { Page, PageRequest } from "./paging";
import { runningTaskId, type SessionRow } from "./rows";
import { claimSession } from "./tx/claim";
import { liveOf, requireSession } from "./tx/sessions";
import { findTask, type TaskRow, taskCount, tasksOf, wholeTask } from "./tx/task-reads";
import { saveTaskTx, taskColumns, taskRefused, taskUpdate } from "./tx/tasks";

export async function saveTask(userId: string, sessionId: string, task: Task, opts: { turn?: string } = {}) {
  const db = await getDb();
  if (opts.turn !== undefined) {
    return db.write(async (tx) => saveTaskTx(tx, await claimSession(tx, userId, sessionId, opts.turn), task));
  }
  // One statement on PostgreSQL, atomic on its own, that reads the session's owner and shared prefix, locks
  // its row, and charges the task's bytes when it was stored.
  const owned = sql`FROM (SELECT id, shared_until FROM sessions WHERE id = ${sessionId} AND ${liveOf(userId)} ${db.dialect.forUpdate}) s`;
  const bytes = taskColumns(task).bytes;
  const [[saved]] = await db.batch([
    chained<{ session_id: string }>(
      sql`${taskUpdate(task, null, { from: owned, id: sql`s.id`, sharedUntil: sql`s.shared_until` })} RETURNING invocations.session_id`,
      (returned) => [
        sql`UPDATE sessions SET stored_bytes = stored_bytes + ${bytes} WHERE id = ${returned("session_id")}`,
        sql`UPDATE users SET stored_bytes = stored_bytes + ${bytes} WHERE id = ${userId} AND ${returned("session_id")} IS NOT NULL`,
      ],
    ),
  ]);
  if (saved) return;
  await requireSession(db, userId, sessionId);
  throw taskRefused(task);
}

/** Finds the user's task `taskId` in one read transaction (404 when there is none), and reads `then` of it. */
async function readTask<T>(
  userId: string,
  taskId: string,
  then: (tx: Executor, found: { row: TaskRow; session: SessionRow }) => Promise<T>,
) {
  const db = await getDb();
  return db.read(async (tx) => {
    const found = await findTask(tx, userId, taskId);
    if (!found) throw new NotFoundError("Task not found");
    return then(tx, found);
  });
}

export async function getTask(userId: string, taskId: string): Promise<Task> {
  return readTask(userId, taskId, wholeTask);
}

/** The user's task and, while its turn runs (on any instance), the session holding it: one read. */
export async function getTaskAndTurn(userId: string, taskId: string) {
  return readTask(userId, taskId, async (tx, found) => ({
    task: await wholeTask(tx, found),
    running: runningTaskId(found.session) === taskId,
  }));
}

/** 404 unless the user has task `taskId`: one read, without the task's history. */
export async function requireTask(userId: string, taskId: string): Promise<void> {
  await readTask(userId, taskId, async () => undefined);
}

/**
 * The session's tasks in order: the effective ones (with their siblings, docs/semantics.md
 * "Versions"), or all with hidden ones flagged `rewound`; everything, or the page before a cursor.
 */
export async function listTasks(
  userId: string,
  sessionId: string,
  opts: { includeRewound?: boolean } & Partial<PageRequest> = {},
): Promise<Page<Task>> {
  const db = await getDb();
  return db.read(async (tx) => {
    const row = await requireSession(tx, userId, sessionId);
    return tasksOf(tx, row, opts);
  });
}

/** How many effective tasks the session has (A2A ListTasks reports it beside a page). */
export async function countTasks(userId: string, sessionId: string): Promise<number> {
  const db = await getDb();
  return db.read(async (tx) => {
    const row = await requireSession(tx, userId, sessionId);
    return taskCount(tx, row);
  });
}
