/** The siblings of turns (docs/semantics.md, "Versions"). */
import { type SQL, sql } from "drizzle-orm";
import { eventText } from "@/lib/session/names";
import { REWIND_REASONS, type RewindReason } from "@/lib/session/rewind";
import type { AdkEvent } from "@/lib/session/types";
import type { InvocationNode } from "@/lib/session/versions";
import { all, combined, type Dialect, type Executor, type Statement } from "../database";
import { parseJson, type SessionRow } from "../rows";
import type { VersionInfo } from "../types";
import { toEvent } from "./history";
import { labelsOf } from "./labels";
import { nodeAt, nodesOf } from "./layout";
import { inPiece, type Log, logOf, type Piece } from "./log";

export interface Siblings {
  retrace_siblings: {
    /** 1-based position of this invocation among its siblings. */
    index: number;
    invocation_ids: string[];
    /** Every sibling starts with the same user text: they are regenerations of one message. */
    regenerations: boolean;
  };
}

type Child = { invocation_id: string; after_invocation_id: string | null; first_seq: number };

type Parented = { invocation_id: string; after_invocation_id?: string | null };

/** The children of `rows`' parents, in order: what `siblingsAmong` reads, as a statement to go out in a batch. */
export function childrenOf(log: Log, rows: Parented[]): Statement<Child[]> {
  const parents = [...new Set(rows.map((r) => r.after_invocation_id ?? null))];
  const named = parents.filter((p): p is string => p !== null);
  // Plain index lookups, one per piece (an OR, or an ORDER BY, sends both dialects' planners scanning).
  const children = (parent: SQL) =>
    log.pieces.map((piece) =>
      all<Child>(sql`
        SELECT invocation_id, after_invocation_id, first_seq FROM invocations
        WHERE ${inPiece(piece, "first_seq", "", "filter")} AND ${parent} AND NOT is_marker`),
    );
  const inList = sql.join(
    named.map((p) => sql`${p}`),
    sql`, `,
  );
  // A long listing asks for most of the tree: reading all of it is cheaper than a huge IN list.
  const statements =
    rows.length === 0
      ? []
      : parents.length > 200
        ? children(sql`true`)
        : [
            ...(named.length ? children(sql`after_invocation_id IN (${inList})`) : []),
            ...(parents.includes(null) ? children(sql`after_invocation_id IS NULL`) : []),
          ];
  return combined(statements, (found) => found.flat().sort((a, b) => a.first_seq - b.first_seq));
}

/** Each child's place among its siblings, for those that have any. */
export async function siblingsAmong(tx: Executor, log: Log, children: Child[]): Promise<Map<string, Siblings>> {
  const result = new Map<string, Siblings>();
  const groups = new Map<string | null, string[]>();
  for (const s of children) groups.set(s.after_invocation_id, [...(groups.get(s.after_invocation_id) ?? []), s.invocation_id]);
  const branching = [...groups.values()].filter((ids) => ids.length > 1);
  const firstSeqs = new Map(children.map((c) => [c.invocation_id, c.first_seq]));
  const [texts] = await tx.batch([
    userTexts(
      tx.dialect,
      log,
      branching.flat().map((id) => ({ id, firstSeq: firstSeqs.get(id) as number })),
    ),
  ]);
  for (const ids of branching) {
    const regenerations = new Set(ids.map((id) => texts.get(id) ?? "")).size === 1;
    ids.forEach((id, i) => {
      result.set(id, { retrace_siblings: { index: i + 1, invocation_ids: ids, regenerations } });
    });
  }
  return result;
}

/** Why a marker ended its head, as its rewind recorded it (`custom_metadata.retrace_reason`); "rewind" when it did not say. */
function reasonOf(data: string): RewindReason {
  const reason = (parseJson<AdkEvent>(data).custom_metadata as { retrace_reason?: unknown } | undefined)?.retrace_reason;
  return REWIND_REASONS.includes(reason as RewindReason) ? (reason as RewindReason) : "rewind";
}

/**
 * The chat's heads, newest first: the current one, then the one each rewind marker ended — each with what
 * tells it apart: its last turn (text, id, its place among its versions) and, for a past head, why it ended.
 */
export async function versionsOf(tx: Executor, row: SessionRow): Promise<VersionInfo[]> {
  const log = logOf(row);
  type Marker = { invocation_id: string; after_invocation_id: string | null; depth: number; timestamp: number; data: string };
  const [leaf, markers] = await tx.batch([
    nodeAt(log, row.tail_seq),
    combined(
      [...log.pieces].reverse().map((piece) =>
        all<Marker>(sql`
          SELECT i.invocation_id, i.after_invocation_id, i.depth, e.timestamp, e.data
          FROM invocations i JOIN events e ON e.session_id = i.session_id AND e.seq = i.first_seq
          WHERE ${inPiece(piece, "first_seq", "i")} AND i.is_marker ORDER BY i.first_seq DESC`),
      ),
      (found) => found.flat(),
    ),
  ]);
  const leaves = [...new Set([leaf?.invocationId, ...markers.map((m) => m.after_invocation_id)].filter((id): id is string => Boolean(id)))];
  const [nodes, labels] = await tx.batch([nodesOf(log, leaves), labelsOf(row.id)]);
  const placed = [...nodes.values()].filter((n): n is InvocationNode => n !== null);
  const [texts, children] = await tx.batch([
    userTexts(
      tx.dialect,
      log,
      placed.map((n) => ({ id: n.invocationId, firstSeq: n.firstSeq })),
    ),
    childrenOf(
      log,
      placed.map((n) => ({ invocation_id: n.invocationId, after_invocation_id: n.afterInvocationId })),
    ),
  ]);
  const siblings = await siblingsAmong(tx, log, children);
  const describe = (id: string | null | undefined) => {
    const found = id ? siblings.get(id)?.retrace_siblings : undefined;
    return {
      last_invocation_id: id ?? null,
      last_user_text: id ? (texts.get(id) ?? null) : null,
      version: found ? { index: found.index, count: found.invocation_ids.length } : null,
      label: (id && labels.get(id)?.label) || null,
      pinned: Boolean(id && labels.get(id)?.pinned),
    };
  };
  return [
    {
      marker_invocation_id: null,
      timestamp: new Date(row.updated_at).toISOString(),
      turns: leaf?.depth ?? 0,
      reason: null,
      ...describe(leaf?.invocationId),
    },
    ...markers.map((m) => ({
      marker_invocation_id: m.invocation_id,
      timestamp: new Date(m.timestamp * 1000).toISOString(),
      turns: m.depth,
      reason: reasonOf(m.data),
      ...describe(m.after_invocation_id),
    })),
  ];
}

/**
 * The user texts of invocations (their first user event), for labels such as History's: one statement for
 * each piece of the log that holds any of them, found by their first seq.
 */
function userTexts(dialect: Dialect, log: Log, invocations: { id: string; firstSeq: number }[]): Statement<Map<string, string>> {
  const byPiece = new Map<Piece, string[]>();
  for (const { id, firstSeq } of invocations) {
    const piece = log.pieces.find((p) => p.from <= firstSeq && firstSeq <= p.to);
    if (piece) byPiece.set(piece, [...(byPiece.get(piece) ?? []), id]);
  }
  // Driven from the list of ids, each one primary-key lookup: with an IN list, PostgreSQL's planner
  // scanned the whole invocations table whenever forks had made its statistics stale (26 ms at 10k).
  // CROSS JOIN fixes SQLite's join order (it otherwise scanned the session's invocations: 19 ms).
  const reads = [...byPiece].map(([piece, ids]) =>
    all<{ invocation_id: string; id: string; data: string }>(sql`
      WITH wanted (invocation_id) AS (${dialect.textList(ids)})
      SELECT i.invocation_id, e.id, e.data FROM wanted w
        CROSS JOIN invocations i
        JOIN events e ON e.session_id = i.session_id AND e.seq = i.first_seq
      WHERE ${inPiece(piece, "first_seq", "i", "filter")} AND i.invocation_id = w.invocation_id`),
  );
  return combined(reads, (found) => new Map(found.flat().map((r) => [r.invocation_id, eventText(toEvent(r))])));
}
