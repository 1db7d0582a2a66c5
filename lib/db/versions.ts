/** Versions (docs/semantics.md): siblings of a turn, the chat's heads, switching between branches. */
import { sql } from "drizzle-orm";
import { InvocationNotFoundError } from "@/lib/errors";
import { walkRewinds } from "@/lib/session/effective-history";
import { REWIND_REASONS, type RewindReason } from "@/lib/session/rewind";
import type { AdkEvent } from "@/lib/session/types";
import { type InvocationNode, isVisible, latestHeadShowing } from "@/lib/session/versions";
import { getDb } from "./client";
import { together } from "./database";
import { parseJson } from "./rows";
import { claimSession } from "./tx/claim";
import { labelsOf } from "./tx/labels";
import { invocationAt, invocationNode, markerLinks, nodesAndHolder } from "./tx/layout";
import { inPiece, logOf } from "./tx/log";
import { rewindTx } from "./tx/rewind";
import { requireSession, sessionRecord } from "./tx/sessions";
import { userTexts } from "./tx/task-reads";
import { siblingsOf } from "./tx/versions";
import type { VersionInfo } from "./types";

/**
 * Shows the branch holding `invocationId`: nothing to do when the chat shows it, else a rewind before
 * the marker that ended the latest head showing it — one marker, undoable like any rewind.
 */
export async function switchSession(userId: string, sessionId: string, invocationId: string) {
  const db = await getDb();
  return db.write(async (tx) => {
    const row = await claimSession(tx, userId, sessionId);
    const log = logOf(row);
    const node = await invocationNode(tx, log, invocationId);
    if (!node || node.isMarker) throw new InvocationNotFoundError(invocationId);
    const markers = await markerLinks(tx, log);
    if (isVisible(node.firstSeq, walkRewinds(row.last_seq, markers).segments)) {
      return { event: null, session: await sessionRecord(tx, row) };
    }
    const marker = latestHeadShowing(node.firstSeq, markers);
    if (!marker) throw new InvocationNotFoundError(invocationId);
    const event = await rewindTx(tx, row, marker, "switch");
    return { event, session: await sessionRecord(tx, await requireSession(tx, userId, sessionId)) };
  });
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
export async function listVersions(userId: string, sessionId: string): Promise<VersionInfo[]> {
  const db = await getDb();
  return db.read(async (tx) => {
    const row = await requireSession(tx, userId, sessionId);
    const log = logOf(row);
    const leaf = await invocationAt(tx, log, row.tail_seq);
    const markers: { invocation_id: string; after_invocation_id: string | null; depth: number; timestamp: number; data: string }[] = [];
    for (const piece of [...log.pieces].reverse()) {
      markers.push(
        ...(await tx.all<(typeof markers)[number]>(sql`
          SELECT i.invocation_id, i.after_invocation_id, i.depth, e.timestamp, e.data
          FROM invocations i JOIN events e ON e.session_id = i.session_id AND e.seq = i.first_seq
          WHERE ${inPiece(piece, "first_seq", "i")} AND i.is_marker ORDER BY i.first_seq DESC`)),
      );
    }
    const leaves = [
      ...new Set([leaf?.invocationId, ...markers.map((m) => m.after_invocation_id)].filter((id): id is string => Boolean(id))),
    ];
    const [texts, labels] = await together([userTexts(tx, log, leaves), labelsOf(tx, row.id)]);
    const { nodes } = await nodesAndHolder(tx, log, leaves, 0);
    const placed = [...nodes.values()].filter((n): n is InvocationNode => n !== null);
    const siblings = await siblingsOf(
      tx,
      log,
      placed.map((n) => ({ invocation_id: n.invocationId, after_invocation_id: n.afterInvocationId })),
    );
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
  });
}
