/** Reading A2A tasks back: one per invocation, its history read from the invocation's events (lib/db/tasks.ts). */
import { sql } from "drizzle-orm";
import { walkRewinds } from "@/lib/session/effective-history";
import { actedInWorld } from "@/lib/session/tools";
import type { AdkEvent, Segment } from "@/lib/session/types";
import { eventToMessage, joinHistories } from "@/lib/task/convert";
import { invocationIdOf } from "@/lib/task/metadata";
import type { Message, Task } from "@/lib/task/types";
import { all, combined, type Executor, type Statement } from "../database";
import { decodeCursor, type Page, type PageRequest, pageOf, UNBOUNDED } from "../paging";
import { parseJson, type SessionRow } from "../rows";
import { toEvent } from "./history";
import { effectiveLayout, markerLinks } from "./layout";
import { eventIdIn, inPiece, inPieces, type Log, lastSeqIn, logOf, pieceAt, piecesIn, splitTaskId, storedTaskIds, taskIdIn } from "./log";
import { liveOf } from "./sessions";
import { childrenOf, siblingsAmong } from "./versions";

export interface TaskRow {
  /** The id the log shows (lib/db/tx/log.ts). */
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
export const TASK_COLUMNS = sql.raw(
  "i.task_id AS id, i.session_id, i.invocation_id, i.first_seq AS position, i.last_seq, i.task AS data, i.after_invocation_id, i.is_marker",
);

const ALL: Segment = [1, UNBOUNDED];

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
export async function assemble(tx: Executor, log: Log, rows: TaskRow[]): Promise<Task[]> {
  return (await tx.batch([assembly(log, rows)]))[0];
}

/** The statement `assemble` sends, to go out in a batch (none for no rows). */
function assembly(log: Log, rows: TaskRow[]): Statement<Task[]> {
  const reads =
    rows.length === 0
      ? []
      : [
          all<{ session_id: string; id: string; invocation_id: string; data: string }>(sql`
            SELECT session_id, id, invocation_id, data FROM events
            WHERE ${inPieces(eventRanges(rows).flatMap((range) => piecesIn(log, range)))} ORDER BY seq`),
        ];
  return combined(reads, ([events]) => tasksFrom(log, rows, events ?? []));
}

function tasksFrom(log: Log, rows: TaskRow[], events: { session_id: string; id: string; invocation_id: string; data: string }[]): Task[] {
  const sessionId = log.id;
  const wanted = new Set(rows.map((r) => r.invocation_id));
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
    const events = byInvocation.get(r.invocation_id) ?? [];
    // What a rewind of this turn would leave done in the world (docs/api.md, "Tasks").
    const acted = events.filter(actedInWorld).length;
    return {
      kind: "task",
      id: r.id,
      contextId: sessionId,
      status: message ? { ...stored.status, message } : stored.status,
      history: events.map((e) => eventToMessage(e, sessionId, r.id)),
      ...(stored.artifacts ? { artifacts: stored.artifacts } : {}),
      metadata: acted ? { ...stored.metadata, retrace_external_calls: acted } : stored.metadata,
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
export async function findTask(tx: Executor, userId: string, taskId: string): Promise<{ row: TaskRow; session: SessionRow } | null> {
  const stored = await tx.one<TaskRow>(sql`SELECT ${TASK_COLUMNS} FROM invocations i WHERE i.task_id = ${taskId}`);
  if (stored) {
    const session = await tx.one<SessionRow>(sql`SELECT * FROM sessions WHERE id = ${stored.session_id} AND ${liveOf(userId)}`);
    return session ? { row: stored, session } : null;
  }
  const shared = splitTaskId(taskId);
  if (!shared) return null;
  const session = await tx.one<SessionRow>(sql`SELECT * FROM sessions WHERE id = ${shared.session} AND ${liveOf(userId)}`);
  if (!session) return null;
  const log = logOf(session);
  const candidates = await tx.all<TaskRow>(sql`
    SELECT ${TASK_COLUMNS} FROM invocations i WHERE i.task_id IN (${sql.join(
      storedTaskIds(log, shared.given).map((id) => sql`${id}`),
      sql`, `,
    )})`);
  // The one the log reads where it stands (a row of its own was found above).
  const row = candidates.find((r) => r.session_id !== session.id && pieceAt(log, r.position)?.session === r.session_id);
  return row ? { row: { ...row, id: taskId, last_seq: lastSeqIn(log, row.position, row.last_seq) }, session } : null;
}

/** The user's task `taskId` as found, whole. */
export async function wholeTask(tx: Executor, found: { row: TaskRow; session: SessionRow }): Promise<Task> {
  const log = logOf(found.session);
  const [task] = await assemble(tx, log, [found.row]);
  return found.row.is_marker ? { ...task, history: await headAfter(tx, log, found.row.position) } : task;
}

interface HiddenBy {
  markerSeq: number;
  markerInvocationId: string;
}

/** What the UI says of a rewound turn: which marker hid it, when and why. */
function rewoundMetadata(log: Log, hidden: Map<string, HiddenBy>) {
  const seqs = [...new Set([...hidden.values()].map((h) => h.markerSeq))];
  const markers = seqs.length
    ? [
        all<{ seq: number; timestamp: number; data: string }>(sql`
          SELECT seq, timestamp, data FROM events WHERE ${inPieces(log.pieces)} AND seq IN (${sql.join(
            seqs.map((s) => sql`${s}`),
            sql`, `,
          )})`),
      ]
    : [];
  return combined(markers, ([found]) => {
    return new Map(
      (found ?? []).map((m) => {
        const reason = (parseJson<AdkEvent>(m.data).custom_metadata as { retrace_reason?: string } | undefined)?.retrace_reason;
        return [m.seq, { at: new Date(m.timestamp * 1000).toISOString(), reason: reason ?? "rewind" }];
      }),
    );
  });
}

type StoredTask = Pick<Task, "status" | "metadata" | "artifacts">;

/** The session's tasks, as listTasks (lib/db/tasks.ts) answers them. */
export async function tasksOf(
  tx: Executor,
  row: SessionRow,
  opts: { includeRewound?: boolean } & Partial<PageRequest>,
): Promise<Page<Task>> {
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
  // Independent reads in one batch: one round trip on PostgreSQL.
  const [markers, children, assembled] = await tx.batch([
    rewoundMetadata(log, hidden),
    childrenOf(
      log,
      page.items.filter((r) => !hidden.has(r.id)),
    ),
    assembly(log, page.items),
  ]);
  const siblings = await siblingsAmong(tx, log, children);
  const tasks = assembled.map((task) => {
    const by = hidden.get(task.id);
    const marker = by && markers.get(by.markerSeq);
    const extra = by
      ? { rewound: true, rewound_by: by.markerInvocationId, rewound_at: marker?.at ?? null, rewound_reason: marker?.reason ?? "rewind" }
      : siblings.get(invocationIdOf(task) ?? "");
    return extra ? { ...task, metadata: { ...task.metadata, ...extra } } : task;
  });
  return { items: tasks, nextBefore: page.nextBefore };
}

/** How many effective tasks the session has. */
export async function taskCount(tx: Executor, row: SessionRow): Promise<number> {
  let total = 0;
  for (const segment of (await effectiveLayout(tx, row)).segments) {
    for (const piece of piecesIn(logOf(row), segment)) {
      const counted = await tx.one<{ n: number }>(sql`
        SELECT COUNT(*) AS n FROM invocations WHERE ${inPiece(piece, "first_seq")} AND task IS NOT NULL AND NOT is_marker`);
      total += Number(counted?.n ?? 0);
    }
  }
  return total;
}
