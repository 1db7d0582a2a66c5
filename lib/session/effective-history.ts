import type { AdkEvent, MarkerLink, Segment } from "./types";

export function rewindTarget(event: AdkEvent): string | null {
  return event.actions?.rewind_before_invocation_id || null;
}

/**
 * ADK Python's `_apply_rewinds`: walk from the last event to the first; a rewind marker hides
 * everything from the earliest event of its target invocation (before the marker) up to itself,
 * or only itself when the target does not occur before it. Markers are never part of the result.
 */
export function applyRewinds(events: readonly AdkEvent[]): AdkEvent[] {
  const kept: AdkEvent[] = [];
  let i = events.length - 1;
  while (i >= 0) {
    const target = rewindTarget(events[i]);
    if (target) {
      const start = events.findIndex((e, j) => j < i && e.invocation_id === target);
      if (start >= 0) i = start;
    } else {
      kept.push(events[i]);
    }
    i -= 1;
  }
  return kept.reverse();
}

/**
 * Where the backward walk continues after reaching a marker at `seq`: just before the first
 * event of its target invocation, or just before the marker when the target is absent.
 */
export function markerParent(seq: number, targetFirstSeq: number | null): number {
  return targetFirstSeq !== null && targetFirstSeq < seq ? targetFirstSeq - 1 : seq - 1;
}

interface RewoundRange {
  from: number;
  to: number;
  markerSeq: number;
  markerInvocationId: string;
}

/**
 * The same walk as `applyRewinds`, computed from the markers alone: the effective history is the
 * union of `segments` (inclusive seq ranges, ascending) and every other event up to `lastSeq` lies in
 * one `rewound` range, attributed to the marker whose jump skipped it. Cost: O(markers on the path).
 */
export function walkRewinds(lastSeq: number, markers: readonly MarkerLink[]) {
  const sorted = [...markers].sort((a, b) => a.seq - b.seq);
  const segments: Segment[] = [];
  const rewound: RewoundRange[] = [];
  let p = lastSeq;
  let hi = sorted.length - 1;
  while (p >= 1) {
    while (hi >= 0 && sorted[hi].seq > p) hi -= 1;
    if (hi < 0) {
      segments.push([1, p]);
      break;
    }
    const marker = sorted[hi];
    if (marker.seq < p) segments.push([marker.seq + 1, p]);
    rewound.push({ from: marker.parent + 1, to: marker.seq, markerSeq: marker.seq, markerInvocationId: marker.invocationId });
    p = marker.parent;
  }
  return { segments: segments.reverse(), rewound: rewound.reverse() };
}
