/**
 * A2A tasks, one per invocation: the invocation's row keeps the task's id, status and metadata; its
 * history is read from the invocation's events, so a fork (which shows shared rows under new ids,
 * lib/db/log.ts) needs no JSON rewriting and copies no task table.
 */

import { type SQL, sql } from "drizzle-orm";
import { NotFoundError, ValidationError } from "@/lib/errors";
import { walkRewinds } from "@/lib/session/effective-history";
import { eventText } from "@/lib/session/names";
import type { AdkEvent, Segment } from "@/lib/session/types";
import { eventToMessage, joinHistories } from "@/lib/task/convert";
import { invocationIdOf } from "@/lib/task/metadata";
import type { Message, Task } from "@/lib/task/types";
import { taskBytes } from "./bytes";
import { getDb } from "./client";
import { type Executor, together } from "./database";
import { toEvent } from "./history";
import { effectiveLayout, markerLinks } from "./layout";
import { eventIdIn, inPiece, inPieces, type Log, lastSeqIn, logOf, pieceAt, piecesIn, splitTaskId, taskIdIn } from "./log";
import { decodeCursor, type Page, type PageRequest, pageOf, UNBOUNDED } from "./paging";
import { parseJson, runningTaskId, type SessionRow } from "./rows";
import { liveOf, requireSession } from "./sessions";
import { claimSession } from "./turns";
import { chargeBytes } from "./users";
import { siblingsOf } from "./versions";

interface TaskRow {
  /** The id the log shows (lib/db/log.ts). */
  id: string;
  /** Where the row is stored. */
  session_id: string;
  invocation_id: string;
  position: number;
  last_seq: number;
  data: string;
  after_invocation_id: string | null;
  is_marker: boolean | number;
}

/** An invocation's row as a task row. */
const TASK_COLUMNS = sql.raw(
  "i.task_id AS id, i.session_id, i.invocation_id, i.first_seq AS position, i.last_seq, i.task AS data, i.after_invocation_id, i.is_marker",
);

type StoredTask = Pick<Task, "status" | "metadata" | "artifacts">;

const ALL: Segment = [1, UNBOUNDED];

function storedForm(task: Task): string {
  return JSON.stringify({ status: task.status, metadata: task.metadata, ...(task.artifacts ? { artifacts: task.artifacts } : {}) });
}

const taskInvocation = (task: Task) => {
  const invocationId = invocationIdOf(task);
  if (!invocationId) throw new ValidationError("Task metadata needs kagent_invocation_id");
  return invocationId;
};

/** Stores `task` on its invocation's row when that invocation has begun, has no other task and no fork shares it. */
const taskUpdate = (task: Task, messageId: string | null, session: { from?: SQL; id: SQL; sharedUntil: SQL }) => sql`
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

const taskRefused = (task: Task) =>
  new ValidationError(`Task ${task.id}: invocation ${taskInvocation(task)} has no events or another task, or a fork shares it`);

/**
 * Creates or updates a task inside the caller's transaction; its invocation must have begun. The caller
 * charges its bytes (`taskColumns(...).bytes`), with the append it goes with.
 */
export async function storeTaskTx(tx: Executor, row: Pick<SessionRow, "id" | "shared_until">, task: Task, messageId?: string) {
  const saved = await tx.run(taskUpdate(task, messageId ?? null, { id: sql`${row.id}`, sharedUntil: sql`${row.shared_until}` }));
  if (saved === 0) throw taskRefused(task);
}

/** `storeTaskTx`, its bytes charged to the chat and its owner. */
export async function saveTaskTx(tx: Executor, row: Pick<SessionRow, "id" | "user_id" | "shared_until">, task: Task, messageId?: string) {
  await together([storeTaskTx(tx, row, task, messageId), chargeBytes(tx, row, taskColumns(task, messageId).bytes)]);
}

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

/** Events between two tasks' ranges are read too when there are few: a page is then one or a few primary-key ranges. */
const MAX_GAP = 64;

/** The seq ranges holding the rows' events, neighbours merged. */
function eventRanges(rows: TaskRow[]): [number, number][] {
  const ranges: [number, number][] = [];
  for (const r of [...rows].sort((a, b) => a.position - b.position)) {
    const last = ranges.at(-1);
    if (last && r.position <= last[1] + MAX_GAP) last[1] = Math.max(last[1], r.last_seq);
    else ranges.push([r.position, r.last_seq]);
  }
  return ranges;
}

/** Whole tasks for rows of one log: each invocation's events (first_seq..last_seq) become its history. */
async function assemble(tx: Executor, log: Log, rows: TaskRow[]): Promise<Task[]> {
  if (rows.length === 0) return [];
  const sessionId = log.id;
  const wanted = new Set(rows.map((r) => r.invocation_id));
  const events = await tx.all<{ session_id: string; id: string; invocation_id: string; data: string }>(sql`
    SELECT session_id, id, invocation_id, data FROM events
    WHERE ${inPieces(eventRanges(rows).flatMap((range) => piecesIn(log, range)))} ORDER BY seq`);
  const byInvocation = new Map<string, AdkEvent[]>();
  for (const e of events) {
    if (wanted.has(e.invocation_id)) {
      const event = toEvent({ id: eventIdIn(log, e.session_id, e.id), data: e.data });
      byInvocation.set(e.invocation_id, [...(byInvocation.get(e.invocation_id) ?? []), event]);
    }
  }
  return rows.map((r) => {
    const stored = parseJson<StoredTask>(r.data);
    const message = stored.status.message && { ...stored.status.message, contextId: sessionId, taskId: r.id };
    return {
      kind: "task",
      id: r.id,
      contextId: sessionId,
      status: message ? { ...stored.status, message } : stored.status,
      history: (byInvocation.get(r.invocation_id) ?? []).map((e) => eventToMessage(e, sessionId, r.id)),
      ...(stored.artifacts ? { artifacts: stored.artifacts } : {}),
      metadata: stored.metadata,
    };
  });
}

/** Tasks whose invocation starts in `ranges`, newest first, at most `limit` (all when undefined); marker tasks never listed. */
async function tasksIn(tx: Executor, log: Log, ranges: readonly Segment[], before: number, limit?: number) {
  const rows: TaskRow[] = [];
  for (const [from, to] of [...ranges].reverse()) {
    if (from >= before) continue;
    for (const piece of piecesIn(log, [from, Math.min(to, before - 1)]).reverse()) {
      const found = await tx.all<TaskRow>(sql`
        SELECT ${TASK_COLUMNS} FROM invocations i
        WHERE ${inPiece(piece, "first_seq", "i")} AND i.task IS NOT NULL AND NOT i.is_marker
        ORDER BY i.first_seq DESC ${limit === undefined ? sql`` : sql`LIMIT ${limit - rows.length}`}`);
      rows.push(...found.map((r) => ({ ...r, id: taskIdIn(log, piece.session, r.id), last_seq: lastSeqIn(log, r.position, r.last_seq) })));
      if (limit !== undefined && rows.length >= limit) return rows;
    }
  }
  return rows;
}

/** The history a rewind-control task answers with: the effective history right after its marker. */
async function headAfter(tx: Executor, log: Log, markerSeq: number): Promise<Message[]> {
  const { segments } = walkRewinds(markerSeq, await markerLinks(tx, log, markerSeq));
  return joinHistories(await assemble(tx, log, (await tasksIn(tx, log, segments, UNBOUNDED)).reverse()));
}

/** The user's task `taskId`, as the log of the session that shows it: stored there, or shared with a fork. */
async function findTask(tx: Executor, userId: string, taskId: string): Promise<{ row: TaskRow; session: SessionRow } | null> {
  const stored = await tx.one<TaskRow>(sql`SELECT ${TASK_COLUMNS} FROM invocations i WHERE i.task_id = ${taskId}`);
  if (stored) {
    const session = await tx.one<SessionRow>(sql`SELECT * FROM sessions WHERE id = ${stored.session_id} AND ${liveOf(userId)}`);
    return session ? { row: stored, session } : null;
  }
  const shared = splitTaskId(taskId);
  if (!shared) return null;
  const session = await tx.one<SessionRow>(sql`SELECT * FROM sessions WHERE id = ${shared.session} AND ${liveOf(userId)}`);
  const row = session && (await tx.one<TaskRow>(sql`SELECT ${TASK_COLUMNS} FROM invocations i WHERE i.task_id = ${shared.stored}`));
  const piece = row && pieceAt(logOf(session), row.position);
  return row && piece?.session === row.session_id && row.session_id !== session.id
    ? { row: { ...row, id: taskId, last_seq: lastSeqIn(logOf(session), row.position, row.last_seq) }, session }
    : null;
}

/** The user's task `taskId` as found, whole. */
async function wholeTask(tx: Executor, found: { row: TaskRow; session: SessionRow }): Promise<Task> {
  const log = logOf(found.session);
  const [task] = await assemble(tx, log, [found.row]);
  return found.row.is_marker ? { ...task, history: await headAfter(tx, log, found.row.position) } : task;
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

/** The session of the user's task `taskId` (404 when there is none). */
export async function sessionOfTask(tx: Executor, userId: string, taskId: string): Promise<SessionRow> {
  const found = await findTask(tx, userId, taskId);
  if (!found) throw new NotFoundError("Task not found");
  return found.session;
}

/**
 * The task a send with this A2A messageId started in the session, if any (a retried send). The lookup
 * goes out at once, after the statement that reads `session` (pipelined on PostgreSQL, and run after it);
 * the session's row is only needed to assemble a task that was found.
 */
export async function taskForMessage(
  tx: Executor,
  sessionId: string,
  messageId: string,
  session: Promise<SessionRow>,
): Promise<Task | null> {
  const found = await tx.one<TaskRow>(sql`
    SELECT ${TASK_COLUMNS} FROM invocations i WHERE i.session_id = ${sessionId} AND i.message_id = ${messageId} AND i.task IS NOT NULL`);
  return found ? (await assemble(tx, logOf(await session), [found]))[0] : null;
}

interface HiddenBy {
  markerSeq: number;
  markerInvocationId: string;
}

/** What the UI says of a rewound turn: which marker hid it, when and why. */
async function rewoundMetadata(tx: Executor, log: Log, hidden: Map<string, HiddenBy>) {
  const seqs = [...new Set([...hidden.values()].map((h) => h.markerSeq))];
  if (seqs.length === 0) return new Map<number, { at: string; reason: string }>();
  const markers = await tx.all<{ seq: number; timestamp: number; data: string }>(sql`
    SELECT seq, timestamp, data FROM events WHERE ${inPieces(log.pieces)} AND seq IN (${sql.join(
      seqs.map((s) => sql`${s}`),
      sql`, `,
    )})`);
  return new Map(
    markers.map((m) => {
      const reason = (parseJson<AdkEvent>(m.data).custom_metadata as { retrace_reason?: string } | undefined)?.retrace_reason;
      return [m.seq, { at: new Date(m.timestamp * 1000).toISOString(), reason: reason ?? "rewind" }];
    }),
  );
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

/** The user texts of invocations (their first user event), for labels such as History's. */
export async function userTexts(tx: Executor, log: Log, invocationIds: string[]): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  // Driven from the list of ids, each one primary-key lookup: with an IN list, PostgreSQL's planner
  // scanned the whole invocations table whenever forks had made its statistics stale (26 ms at 10k).
  // CROSS JOIN fixes SQLite's join order (it otherwise scanned the session's invocations: 19 ms).
  for (const piece of log.pieces) {
    const wanted = invocationIds.filter((id) => !texts.has(id));
    if (wanted.length === 0) break;
    const rows = await tx.all<{ invocation_id: string; id: string; data: string }>(sql`
      WITH wanted (invocation_id) AS (${tx.dialect.textList(wanted)})
      SELECT i.invocation_id, e.id, e.data FROM wanted w
        CROSS JOIN invocations i
        JOIN events e ON e.session_id = i.session_id AND e.seq = i.first_seq
      WHERE ${inPiece(piece, "first_seq", "i", "filter")} AND i.invocation_id = w.invocation_id`);
    for (const r of rows) texts.set(r.invocation_id, eventText(toEvent(r)));
  }
  return texts;
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
