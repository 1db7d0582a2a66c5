/** Where things are in a session's log: its rewind markers, the effective layout, invocations' first events. */
import { sql } from "drizzle-orm";
import { InvocationNotFoundError } from "@/lib/errors";
import { walkRewinds } from "@/lib/session/effective-history";
import type { MarkerLink } from "@/lib/session/types";
import type { InvocationNode } from "@/lib/session/versions";
import { all, combined, type Executor, mapped, one, type Statement } from "../database";
import { UNBOUNDED } from "../paging";
import type { SessionRow } from "../rows";
import { inPiece, inPieces, type Log, logOf, pieceAt, piecesIn } from "./log";

/** Every rewind marker of the session with where the backward walk continues (few rows, one index scan). */
export async function markerLinks(tx: Executor, log: Log, upTo = UNBOUNDED): Promise<MarkerLink[]> {
  return (await tx.batch([linksOf(log, upTo)]))[0];
}

/** The statement `markerLinks` sends, to go out in a batch. */
export const linksOf = (log: Log, upTo = UNBOUNDED) =>
  all<MarkerLink>(sql`
    SELECT seq, marker_parent AS parent, invocation_id AS "invocationId" FROM events
    WHERE ${inPieces(piecesIn(log, [1, upTo]))} AND marker_parent IS NOT NULL ORDER BY seq`);

/** The effective history of `row` as it was read, as seq ranges, computed from the markers alone (docs/semantics.md). */
export async function effectiveLayout(tx: Executor, row: Pick<SessionRow, "id" | "last_seq" | "inherited">) {
  // An empty log has no markers to read (a new chat's first turn).
  return walkRewinds(row.last_seq, row.last_seq === 0 ? [] : await markerLinks(tx, logOf(row), row.last_seq));
}

interface NodeRow {
  invocation_id: string;
  first_seq: number;
  after_invocation_id: string | null;
  depth: number;
  is_marker: boolean | number;
}

const toNode = (r: NodeRow): InvocationNode => ({
  invocationId: r.invocation_id,
  firstSeq: r.first_seq,
  afterInvocationId: r.after_invocation_id,
  depth: r.depth,
  isMarker: Boolean(r.is_marker),
});

const nodeColumns = (alias: string) =>
  sql.raw(["invocation_id", "first_seq", "after_invocation_id", "depth", "is_marker"].map((c) => `${alias}${c}`).join(", "));

/** The nodes of those of `invocationIds` that are in the log (`extra`: columns before theirs). */
const nodesNamed = (log: Log, invocationIds: string[], extra = sql``) => sql`
  SELECT ${extra}${nodeColumns("")} FROM invocations
  WHERE ${inPieces(log.pieces, "first_seq", "", "filter")} AND invocation_id IN (${sql.join(
    invocationIds.map((id) => sql`${id}`),
    sql`, `,
  )})`;

/** The node of the invocation whose events include seq `seq` (the one that started last at or before it). */
const nodeHolding = (log: Log, seq: number, extra = sql``) => sql`
  SELECT ${extra}${nodeColumns("i.")} FROM events e JOIN invocations i ON i.session_id = e.session_id AND i.invocation_id = e.invocation_id
  WHERE ${inPiece(pieceAt(log, seq), "seq", "e")} AND e.seq = ${seq}`;

export async function invocationNode(tx: Executor, log: Log, invocationId: string): Promise<InvocationNode | null> {
  const row = await tx.one<NodeRow>(nodesNamed(log, [invocationId]));
  return row ? toNode(row) : null;
}

/** The node of each of `invocationIds`, null for those not in the log: one statement. */
export async function invocationNodes(tx: Executor, log: Log, invocationIds: string[]): Promise<Map<string, InvocationNode | null>> {
  return (await tx.batch([nodesOf(log, invocationIds)]))[0];
}

/** The statement `invocationNodes` sends, to go out in a batch (none for no ids). */
export function nodesOf(log: Log, invocationIds: string[]): Statement<Map<string, InvocationNode | null>> {
  const found = invocationIds.length > 0 ? [all<NodeRow>(nodesNamed(log, invocationIds))] : [];
  return combined(found, ([rows]) => {
    const nodes = new Map<string, InvocationNode | null>(invocationIds.map((id) => [id, null]));
    for (const r of rows ?? []) nodes.set(r.invocation_id, toNode(r));
    return nodes;
  });
}

/** The invocation whose events include seq `seq`. */
export async function invocationAt(tx: Executor, log: Log, seq: number): Promise<InvocationNode | null> {
  return (await tx.batch([nodeAt(log, seq)]))[0];
}

/** The statement `invocationAt` sends, to go out in a batch (none below seq 1). */
export const nodeAt = (log: Log, seq: number): Statement<InvocationNode | null> =>
  combined(seq < 1 ? [] : [one<NodeRow>(nodeHolding(log, seq))], ([row]) => (row ? toNode(row) : null));

/** `invocationAt` of each of `seqs`, in one statement. */
export async function invocationsAt(tx: Executor, log: Log, seqs: number[]): Promise<Map<number, InvocationNode>> {
  const wanted = [...new Set(seqs.filter((seq) => seq >= 1))];
  if (wanted.length === 0) return new Map();
  const rows = await tx.all<NodeRow & { at: number }>(
    sql.join(
      wanted.map((seq) => nodeHolding(log, seq, sql`CAST(${seq} AS INTEGER) AS at, `)),
      sql` UNION ALL `,
    ),
  );
  return new Map(rows.map((r) => [Number(r.at), toNode(r)]));
}

/**
 * `invocationNode` of each id and the tail's node, `invocationAt(tail)` (none for a tail below 1), in one
 * statement: what an append looks up before it writes, one round trip instead of two or more on PostgreSQL.
 */
export async function nodesAndTail(tx: Executor, log: Log, invocationIds: string[], tail: number) {
  const queries = [
    ...(invocationIds.length ? [nodesNamed(log, invocationIds, sql`0 AS at_tail, `)] : []),
    ...(tail >= 1 ? [nodeHolding(log, tail, sql`1 AS at_tail, `)] : []),
  ];
  const rows = queries.length ? await tx.all<NodeRow & { at_tail: number }>(sql.join(queries, sql` UNION ALL `)) : [];
  const nodes = new Map<string, InvocationNode | null>(invocationIds.map((id) => [id, null]));
  let tailNode: InvocationNode | null = null;
  for (const r of rows) {
    if (r.at_tail) tailNode = toNode(r);
    else nodes.set(r.invocation_id, toNode(r));
  }
  return { nodes, tailNode };
}

/** `nodesAndTail` read before the session's row, with the tail it was looked up at. */
export interface Ahead {
  nodes: Map<string, InvocationNode | null>;
  tailNode: InvocationNode | null;
  tail: number;
  lastSeq: number;
}

/**
 * `nodesAndTail` for a chat that is no fork (its log is its own, one piece), issued before its row is
 * read: the tail is the one the row shows when the statement runs, which is once the row is locked when
 * the statement goes out behind the lock (one round trip on PostgreSQL). An append uses it when the row
 * it then reads shows no fork, that tail and that last seq (nothing was appended in between).
 */
export function lookAhead(sessionId: string, invocationIds: string[]): Statement<Ahead> {
  const own = logOf({ id: sessionId, inherited: null });
  const queries = [
    ...(invocationIds.length ? [nodesNamed(own, invocationIds, sql`0 AS at_tail, NULL AS tail, NULL AS last, `)] : []),
    sql`
      SELECT 1 AS at_tail, s.tail_seq AS tail, s.last_seq AS last, ${nodeColumns("i.")} FROM sessions s
        LEFT JOIN events e ON e.session_id = s.id AND e.seq = s.tail_seq
        LEFT JOIN invocations i ON i.session_id = e.session_id AND i.invocation_id = e.invocation_id
      WHERE s.id = ${sessionId}`,
  ];
  type Row = { at_tail: number; tail: number | null; last: number | null };
  return mapped(all<(NodeRow & Row) | (Row & { invocation_id: null })>(sql.join(queries, sql` UNION ALL `)), (rows) => {
    const nodes = new Map<string, InvocationNode | null>(invocationIds.map((id) => [id, null]));
    let tailNode: InvocationNode | null = null;
    let tail = -1;
    let lastSeq = -1;
    for (const r of rows) {
      if (r.at_tail) {
        tail = Number(r.tail);
        lastSeq = Number(r.last);
        if (r.invocation_id !== null) tailNode = toNode(r as NodeRow);
      } else nodes.set(r.invocation_id as string, toNode(r as NodeRow));
    }
    return { nodes, tailNode, tail, lastSeq };
  });
}

/** The node of turn `invocationId` of the session's log; a marker, or a turn it does not have, is `invocation_not_found`. */
export async function requireTurn(tx: Executor, row: Pick<SessionRow, "id" | "inherited">, invocationId: string): Promise<InvocationNode> {
  const node = await invocationNode(tx, logOf(row), invocationId);
  if (!node || node.isMarker) throw new InvocationNotFoundError(invocationId);
  return node;
}

/** The first event of invocation X (the rewind/fork boundary); unknown X is `invocation_not_found`. */
export async function requireBoundary(tx: Executor, log: Log, invocationId: string): Promise<number> {
  const node = await invocationNode(tx, log, invocationId);
  if (!node) throw new InvocationNotFoundError(invocationId);
  return node.firstSeq;
}
