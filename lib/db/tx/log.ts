/**
 * A session's log as the rows that hold it. A fork inherits its source's rows below its boundary instead
 * of copying them (copy-on-write): `sessions.inherited` lists the pieces it reads from other sessions,
 * and every seq from its boundary on is its own. Inherited rows show the fork new event and task ids,
 * derived from the stored ones, as a copy would have (docs/semantics.md, "Fork").
 */
import { createHash } from "node:crypto";
import { type SQL, sql } from "drizzle-orm";
import type { Segment } from "@/lib/session/types";
import { UNBOUNDED } from "../paging";
import { parseJson, type SessionRow } from "../rows";

/** Seqs `from`..`to` of a log, stored under `session`. */
export interface Piece {
  session: string;
  from: number;
  to: number;
}

/** The session `id` as pieces in seq order, its own last. */
export interface Log {
  id: string;
  pieces: Piece[];
}

export function logOf(row: Pick<SessionRow, "id" | "inherited">): Log {
  const inherited = row.inherited ? parseJson<Piece[]>(row.inherited) : [];
  return { id: row.id, pieces: [...inherited, { session: row.id, from: (inherited.at(-1)?.to ?? 0) + 1, to: UNBOUNDED }] };
}

/** The first seq the session stores itself. */
export const ownFrom = (log: Log) => (log.pieces.at(-1) as Piece).from;

/** What a fork before `boundary` inherits: every piece of `log` below it, clipped. */
export function inheritedBelow(log: Log, boundary: number): Piece[] {
  return piecesIn(log, [1, boundary - 1]);
}

/** A fork reads at most this many pieces of other logs: every query over a log is one index range per piece. */
export const MAX_PIECES = 16;
/** What a fork that would read more keeps after copying some of them in. */
const PIECES_KEPT = 8;

/**
 * Bounds the pieces a new fork `forkId` inherits: past MAX_PIECES, the run of neighbouring pieces with the
 * fewest rows is copied into the fork (`copy`) and read as one piece of its own. In a chain of forks each
 * adding a little, the copies are the few recent rows, so a fork's cost stays flat whatever the depth.
 */
export function flatten(pieces: Piece[], forkId: string): { pieces: Piece[]; copy: Piece[] } {
  if (pieces.length <= MAX_PIECES) return { pieces, copy: [] };
  const length = pieces.length - PIECES_KEPT + 1;
  const rows = (p: Piece) => p.to - p.from + 1;
  let best = 0;
  let bestRows = Number.POSITIVE_INFINITY;
  let window = pieces.slice(0, length - 1).reduce((n, p) => n + rows(p), 0);
  for (let start = 0; start + length <= pieces.length; start++) {
    window += rows(pieces[start + length - 1]) - (start > 0 ? rows(pieces[start - 1]) : 0);
    if (window < bestRows) [best, bestRows] = [start, window];
  }
  const copy = pieces.slice(best, best + length);
  const merged: Piece = { session: forkId, from: copy[0].from, to: (copy.at(-1) as Piece).to };
  return { pieces: [...pieces.slice(0, best), merged, ...pieces.slice(best + length)], copy };
}

/** Seq ranges, sorted, with overlapping and touching ones joined. */
export function joined(pieces: Piece[]): Piece[] {
  const out: Piece[] = [];
  for (const p of [...pieces].sort((a, b) => a.from - b.from)) {
    const last = out.at(-1);
    if (last && p.from <= last.to + 1) last.to = Math.max(last.to, p.to);
    else out.push({ ...p });
  }
  return out;
}

/** The pieces covering seqs `from`..`to`, clipped to it, in seq order. */
export function piecesIn(log: Log, [from, to]: Segment): Piece[] {
  return log.pieces
    .filter((p) => p.from <= to && p.to >= from)
    .map((p) => ({ session: p.session, from: Math.max(p.from, from), to: Math.min(p.to, to) }));
}

/** The piece holding `seq`. */
export const pieceAt = (log: Log, seq: number) => piecesIn(log, [seq, seq])[0];

/**
 * An invocation's last seq as the log shows it: an inherited invocation may have gone on in its source after
 * the fork's boundary (events of X, Y, X; a fork before Y), and the fork holds only what came before.
 */
export function lastSeqIn(log: Log, firstSeq: number, lastSeq: number): number {
  const piece = log.pieces.find((p) => p.from <= firstSeq && firstSeq <= p.to);
  return Math.min(lastSeq, piece?.to ?? lastSeq);
}

/**
 * How a query uses a piece's seq bounds: as the index range it scans, or only as a filter on rows it
 * finds by another key (written `column + 0`, so neither dialect's planner scans by them instead).
 */
export type Bounds = "range" | "filter";

/** Rows of the piece: in its session, with `column` (a seq, `alias.`-qualified when given) in its range. */
export function inPiece(p: Piece, column = "seq", alias = "", bounds: Bounds = "range"): SQL {
  const q = (name: string) => sql.raw(alias ? `${alias}.${name}` : name);
  const seq = bounds === "range" ? q(column) : sql`(${q(column)} + 0)`;
  // A session that is no fork has one piece, 1..UNBOUNDED: no bounds at all, the queries it always had.
  return sql`${q("session_id")} = ${p.session}${p.from > 1 ? sql` AND ${seq} >= ${p.from}` : sql``}${
    p.to < UNBOUNDED ? sql` AND ${seq} <= ${p.to}` : sql``
  }`;
}

/** Rows of any of the pieces (a few index ranges; one for a session that is no fork). */
export function inPieces(pieces: Piece[], column = "seq", alias = "", bounds: Bounds = "range"): SQL {
  if (pieces.length === 0) return sql`1 = 0`;
  if (pieces.length === 1) return inPiece(pieces[0], column, alias, bounds);
  return sql`(${sql.join(
    pieces.map((p) => sql`(${inPiece(p, column, alias, bounds)})`),
    sql` OR `,
  )})`;
}

/** The id the log shows for an event stored under `session`: an inherited row's is derived, stable and new. */
export function eventIdIn(log: Log, session: string, id: string): string {
  if (session === log.id) return id;
  // The storing session too: clients choose event ids, so two pieces may hold the same one.
  const hex = createHash("sha256").update(`${log.id}/${session}/${id}`).digest("hex");
  // A version-8 (custom) UUID.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((Number.parseInt(hex[16], 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const TASK_ID_SEPARATOR = ":";

/** What the log puts before an inherited task's id. */
export const inheritedTaskIdPrefix = (log: Log) => `${log.id}${TASK_ID_SEPARATOR}`;

/**
 * The id a task stored under `session` was given when its turn ran: a fork that copied the row in (`flatten`)
 * stores it behind its own id, as it shows it. Every fork shows that id behind its own, so it never grows.
 */
function givenTaskId(session: string, stored: string): string {
  const prefix = `${session}${TASK_ID_SEPARATOR}`;
  return stored.startsWith(prefix) ? stored.slice(prefix.length) : stored;
}

/** `givenTaskId` in SQL, of the `task_id` column of rows stored under `session`. */
export const givenTaskIdSql = (session: string) => {
  const prefix = `${session}${TASK_ID_SEPARATOR}`;
  return sql`CASE WHEN substr(task_id, 1, ${prefix.length}) = ${prefix} THEN substr(task_id, ${prefix.length + 1}) ELSE task_id END`;
};

/** The id the log shows for a task stored under `session`: an inherited task's is the fork's id and the id it was given. */
export function taskIdIn(log: Log, session: string, id: string): string {
  return session === log.id ? id : `${inheritedTaskIdPrefix(log)}${givenTaskId(session, id)}`;
}

/** An inherited task's id split into the fork that shows it and the id the task was given; null for any other id. */
export function splitTaskId(id: string): { session: string; given: string } | null {
  const at = id.indexOf(TASK_ID_SEPARATOR);
  return at > 0 ? { session: id.slice(0, at), given: id.slice(at + 1) } : null;
}

/** The ids a task the log shows as `<log id>:<given>` may be stored under: as given, or as a fork's copy. */
export function storedTaskIds(log: Log, given: string): string[] {
  const storing = new Set(log.pieces.map((p) => p.session).filter((s) => s !== log.id));
  return [given, ...[...storing].map((s) => `${s}${TASK_ID_SEPARATOR}${given}`)];
}
