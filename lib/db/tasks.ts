/**
 * A2A tasks, one per invocation: the invocation's row keeps the task's id, status and metadata; its
 * history is read from the invocation's events, so a fork (which shows shared rows under new ids,
 * lib/db/log.ts) needs no JSON rewriting and copies no task table.
 */

import { sql } from "drizzle-orm";
import { invocationIdOf } from "@/lib/a2a/metadata";
import type { Task } from "@/lib/a2a/types";
import { NotFoundError } from "@/lib/errors";
import { getDb } from "./client";
import { type Executor, together } from "./database";
import { decodeCursor, type Page, type PageRequest, pageOf } from "./paging";
import { runningTaskId, type SessionRow } from "./rows";
import { claimSession } from "./tx/claim";
import { effectiveLayout } from "./tx/layout";
import { inPiece, logOf, piecesIn } from "./tx/log";
import { liveOf, requireSession } from "./tx/sessions";
import { ALL, assemble, findTask, type HiddenBy, rewoundMetadata, type TaskRow, tasksIn, wholeTask } from "./tx/task-reads";
import { saveTaskTx, taskColumns, taskRefused, taskUpdate } from "./tx/tasks";
import { siblingsOf } from "./tx/versions";

export async function saveTask(userId: string, sessionId: string, task: Task, opts: { turn?: string } = {}) {
  const db = await getDb();
  if (opts.turn !== undefined) {
    return db.write(async (tx) => saveTaskTx(tx, await claimSession(tx, userId, sessionId, opts.turn), task));
  }
  // One statement on PostgreSQL, atomic on its own, that reads the session's owner and shared prefix, locks
  // its row, and charges the task's bytes when it was stored.
  const owned = sql`FROM (SELECT id, shared_until FROM sessions WHERE id = ${sessionId} AND ${liveOf(userId)} ${db.dialect.forUpdate}) s`;
  const bytes = taskColumns(task).bytes;
  const [saved] = await db.chain<{ session_id: string }>(
    sql`${taskUpdate(task, null, { from: owned, id: sql`s.id`, sharedUntil: sql`s.shared_until` })} RETURNING invocations.session_id`,
    (returned) => [
      sql`UPDATE sessions SET stored_bytes = stored_bytes + ${bytes} WHERE id = ${returned("session_id")}`,
      sql`UPDATE users SET stored_bytes = stored_bytes + ${bytes} WHERE id = ${userId} AND ${returned("session_id")} IS NOT NULL`,
    ],
  );
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
    const log = logOf(row);
    const layout = await effectiveLayout(tx, row);
    const before = decodeCursor(opts.before);
    const wanted = opts.limit === undefined ? undefined : opts.limit + 1;
    const rows = await tasksIn(tx, log, opts.includeRewound ? [ALL] : layout.segments, before, wanted);
    const page = pageOf(rows, opts.limit ?? rows.length, (r) => r.position);
    const hidden = new Map<string, HiddenBy>();
    for (const r of page.items) {
      const range = layout.rewound.find((h) => r.position >= h.from && r.position <= h.to);
      if (range) hidden.set(r.id, range);
    }
    // Independent reads, issued together: one round trip for their first statements on PostgreSQL.
    const [markers, siblings, assembled] = await together([
      rewoundMetadata(tx, log, hidden),
      siblingsOf(
        tx,
        log,
        page.items.filter((r) => !hidden.has(r.id)),
      ),
      assemble(tx, log, page.items),
    ]);
    const tasks = assembled.map((task) => {
      const by = hidden.get(task.id);
      const marker = by && markers.get(by.markerSeq);
      const extra = by
        ? { rewound: true, rewound_by: by.markerInvocationId, rewound_at: marker?.at ?? null, rewound_reason: marker?.reason ?? "rewind" }
        : siblings.get(invocationIdOf(task) ?? "");
      return extra ? { ...task, metadata: { ...task.metadata, ...extra } } : task;
    });
    return { items: tasks, nextBefore: page.nextBefore };
  });
}

/** How many effective tasks the session has (A2A ListTasks reports it beside a page). */
export async function countTasks(userId: string, sessionId: string): Promise<number> {
  const db = await getDb();
  return db.read(async (tx) => {
    const row = await requireSession(tx, userId, sessionId);
    let total = 0;
    for (const segment of (await effectiveLayout(tx, row)).segments) {
      for (const piece of piecesIn(logOf(row), segment)) {
        const counted = await tx.one<{ n: number }>(sql`
          SELECT COUNT(*) AS n FROM invocations WHERE ${inPiece(piece, "first_seq")} AND task IS NOT NULL AND NOT is_marker`);
        total += Number(counted?.n ?? 0);
      }
    }
    return total;
  });
}
