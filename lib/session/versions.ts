/**
 * The chat as a tree (docs/semantics.md, "Versions"). Every invocation records the chat's last
 * visible invocation when it began: a turn's parent, or for a rewind marker the leaf of the head it
 * ended. Heads, siblings and switching are then lookups over those links and the markers.
 */
import { walkRewinds } from "./effective-history";
import type { MarkerLink, Segment } from "./types";

export interface InvocationNode {
  invocationId: string;
  firstSeq: number;
  /** A turn's parent, or the leaf of the head a marker ended; null when the chat showed nothing. */
  afterInvocationId: string | null;
  /** Turns on the path to this invocation (for a marker: turns in the head it ended). */
  depth: number;
  isMarker: boolean;
}

export const isVisible = (seq: number, segments: readonly Segment[]) => segments.some(([from, to]) => seq >= from && seq <= to);

/** The seq of the last event of the effective history of events 1..lastSeq (0 when it is empty). */
export function tailOf(lastSeq: number, markers: readonly MarkerLink[]): number {
  return walkRewinds(lastSeq, markers).segments.at(-1)?.[1] ?? 0;
}

/**
 * The tail right after a rewind marker whose walk continues at `parent` (`links`: every marker's seq → its
 * parent): markers are never part of the effective history, so it is the first position from `parent`
 * back that is not a marker. The same as `tailOf` at the marker, in steps over markers only.
 */
export function tailAfterMarker(parent: number, links: ReadonlyMap<number, number>): number {
  let tail = parent;
  for (let next = links.get(tail); next !== undefined; next = links.get(tail)) tail = next;
  return tail;
}

/** A new invocation's place in the tree, from the invocation at the chat's current tail. */
export function placeInvocation(
  invocationId: string,
  firstSeq: number,
  isMarker: boolean,
  tail: Pick<InvocationNode, "invocationId" | "depth"> | null,
): InvocationNode {
  const depth = (tail?.depth ?? 0) + (isMarker ? 0 : 1);
  return { invocationId, firstSeq, afterInvocationId: tail?.invocationId ?? null, depth, isMarker };
}

/**
 * The tree of a whole log, replayed once: how chats stored before the tree existed get theirs.
 * `events` are in seq order; `markerParent` is set on rewind markers.
 */
export function buildInvocationTree(events: readonly { seq: number; invocationId: string; markerParent: number | null }[]) {
  const nodes = new Map<string, InvocationNode>();
  const invocationAt = new Map<number, string>();
  const links = new Map<number, number>();
  let tail = 0;
  for (const e of events) {
    invocationAt.set(e.seq, e.invocationId);
    const isMarker = e.markerParent !== null;
    if (!nodes.has(e.invocationId)) {
      const tailNode = tail ? nodes.get(invocationAt.get(tail) ?? "") : undefined;
      nodes.set(e.invocationId, placeInvocation(e.invocationId, e.seq, isMarker, tailNode ?? null));
    }
    if (isMarker) {
      links.set(e.seq, e.markerParent as number);
      tail = tailAfterMarker(e.markerParent as number, links);
    } else {
      tail = e.seq;
    }
  }
  return { nodes: [...nodes.values()], tailSeq: tail };
}

/**
 * Switching to an invocation the current head does not show restores the latest head that showed it:
 * the head ended by the returned marker (null when none did). `targetSeq` is the invocation's first
 * event; `markers` are all of the session's, in any order.
 */
export function latestHeadShowing(targetSeq: number, markers: readonly MarkerLink[]): string | null {
  const sorted = [...markers].sort((a, b) => a.seq - b.seq);
  for (let i = sorted.length - 1; i >= 0 && sorted[i].seq > targetSeq; i--) {
    if (isVisible(targetSeq, walkRewinds(sorted[i].seq - 1, sorted.slice(0, i)).segments)) return sorted[i].invocationId;
  }
  return null;
}
