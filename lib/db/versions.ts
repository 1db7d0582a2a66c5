/** Versions (docs/semantics.md): siblings of a turn, the chat's heads, switching between branches. */
import { sql } from "drizzle-orm";
import { InvocationNotFoundError } from "@/lib/errors";
import { walkRewinds } from "@/lib/session/effective-history";
import { isVisible, latestHeadShowing } from "@/lib/session/versions";
import { getDb } from "./client";
import type { Executor } from "./database";
import { invocationAt, invocationNode, markerLinks } from "./layout";
import { rewindTx } from "./rewind";
import { requireSession, sessionRecord } from "./sessions";
import { userTexts } from "./tasks";
import { claimSession } from "./turns";
import type { VersionInfo } from "./types";

export interface Siblings {
  retrace_siblings: {
    /** 1-based position of this invocation among its siblings. */
    index: number;
    invocation_ids: string[];
    /** Every sibling starts with the same user text: they are regenerations of one message. */
    regenerations: boolean;
  };
}

/** For each of `rows` that has siblings (invocations with the same parent), its place among them. */
export async function siblingsOf(
  tx: Executor,
  sessionId: string,
  rows: { invocation_id: string; after_invocation_id?: string | null }[],
): Promise<Map<string, Siblings>> {
  const result = new Map<string, Siblings>();
  if (rows.length === 0) return result;
  const parents = [...new Set(rows.map((r) => r.after_invocation_id ?? null))];
  const named = parents.filter((p): p is string => p !== null);
  // Two plain index lookups (an OR, or an ORDER BY, sends both dialects' planners scanning).
  const children = (parent: ReturnType<typeof sql>) =>
    tx.all<{ invocation_id: string; after_invocation_id: string | null; first_seq: number }>(sql`
      SELECT invocation_id, after_invocation_id, first_seq FROM invocations WHERE session_id = ${sessionId} AND ${parent} AND NOT is_marker`);
  const all = [
    ...(named.length
      ? await children(
          sql`after_invocation_id IN (${sql.join(
            named.map((p) => sql`${p}`),
            sql`, `,
          )})`,
        )
      : []),
    ...(parents.includes(null) ? await children(sql`after_invocation_id IS NULL`) : []),
  ].sort((a, b) => a.first_seq - b.first_seq);
  const groups = new Map<string | null, string[]>();
  for (const s of all) groups.set(s.after_invocation_id, [...(groups.get(s.after_invocation_id) ?? []), s.invocation_id]);
  const branching = [...groups.values()].filter((ids) => ids.length > 1);
  const texts = await userTexts(tx, sessionId, branching.flat());
  for (const ids of branching) {
    const regenerations = new Set(ids.map((id) => texts.get(id) ?? "")).size === 1;
    ids.forEach((id, i) => {
      result.set(id, { retrace_siblings: { index: i + 1, invocation_ids: ids, regenerations } });
    });
  }
  return result;
}

/**
 * Shows the branch holding `invocationId`: nothing to do when the chat shows it, else a rewind before
 * the marker that ended the latest head showing it — one marker, undoable like any rewind.
 */
export async function switchSession(userId: string, sessionId: string, invocationId: string) {
  const db = await getDb();
  return db.write(async (tx) => {
    const row = await claimSession(tx, userId, sessionId);
    const node = await invocationNode(tx, row.id, invocationId);
    if (!node || node.isMarker) throw new InvocationNotFoundError(invocationId);
    const markers = await markerLinks(tx, row.id);
    if (isVisible(node.firstSeq, walkRewinds(row.last_seq, markers).segments)) {
      return { event: null, session: await sessionRecord(tx, row) };
    }
    const marker = latestHeadShowing(node.firstSeq, markers);
    if (!marker) throw new InvocationNotFoundError(invocationId);
    const event = await rewindTx(tx, row, marker, "switch");
    return { event, session: await sessionRecord(tx, await requireSession(tx, userId, sessionId)) };
  });
}

/** The chat's heads, newest first: the current one, then the one each rewind marker ended. */
export async function listVersions(userId: string, sessionId: string): Promise<VersionInfo[]> {
  const db = await getDb();
  return db.read(async (tx) => {
    const row = await requireSession(tx, userId, sessionId);
    const leaf = await invocationAt(tx, row.id, row.tail_seq);
    const markers = await tx.all<{ invocation_id: string; after_invocation_id: string | null; depth: number; timestamp: number }>(sql`
      SELECT i.invocation_id, i.after_invocation_id, i.depth, e.timestamp
      FROM invocations i JOIN events e ON e.session_id = i.session_id AND e.seq = i.first_seq
      WHERE i.session_id = ${row.id} AND i.is_marker ORDER BY i.first_seq DESC`);
    const leaves = new Set([leaf?.invocationId, ...markers.map((m) => m.after_invocation_id)].filter((id): id is string => Boolean(id)));
    const texts = await userTexts(tx, row.id, [...leaves]);
    const textOf = (id: string | null | undefined) => (id ? (texts.get(id) ?? null) : null);
    return [
      {
        marker_invocation_id: null,
        timestamp: new Date(row.updated_at).toISOString(),
        turns: leaf?.depth ?? 0,
        last_user_text: textOf(leaf?.invocationId),
      },
      ...markers.map((m) => ({
        marker_invocation_id: m.invocation_id,
        timestamp: new Date(m.timestamp * 1000).toISOString(),
        turns: m.depth,
        last_user_text: textOf(m.after_invocation_id),
      })),
    ];
  });
}
