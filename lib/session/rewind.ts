import { randomUUID } from "node:crypto";
import { deepEqual, emptyState, hasKey, scopeOf, USER_PREFIX } from "./state";
import type { AdkEvent, ArtifactDelta, State, StateDelta } from "./types";

export function newInvocationId(): string {
  return `e-${randomUUID()}`;
}

/** The delta that turns the current session state back into the state at the boundary (rewind, step 3). */
export function rewindStateDelta(current: State, atBoundary: State): StateDelta {
  const delta = emptyState();
  for (const [key, value] of Object.entries(atBoundary)) {
    if (scopeOf(key) === "session" && !deepEqual(hasKey(current, key) ? current[key] : undefined, value)) delta[key] = value;
  }
  for (const key of Object.keys(current)) {
    if (scopeOf(key) === "session" && !hasKey(atBoundary, key)) delta[key] = null;
  }
  return delta;
}

/** The version each file had as last recorded by `artifact_delta`s, in order. File names are data, so a Map. */
export function recordedVersions(deltas: Iterable<ArtifactDelta>): Map<string, number> {
  const versions = new Map<string, number>();
  for (const delta of deltas) for (const [filename, version] of Object.entries(delta)) versions.set(filename, version);
  return versions;
}

/** A file to restore: `restore` is the boundary version whose content is copied, null for a tombstone. */
export interface ArtifactRestore {
  filename: string;
  restore: number | null;
}

/** Session-scoped files whose recorded version moved after the boundary (rewind, step 4). */
export function rewindArtifactPlan(current: Map<string, number>, atBoundary: Map<string, number>): ArtifactRestore[] {
  return [...current.keys()]
    .filter((filename) => !filename.startsWith(USER_PREFIX) && current.get(filename) !== atBoundary.get(filename))
    .sort()
    .map((filename) => ({ filename, restore: atBoundary.get(filename) ?? null }));
}

/** Why a rewind happened, kept on its marker (`custom_metadata.retrace_reason`) so the UI can say it. */
export const REWIND_REASONS = ["rewind", "undo", "edit", "regenerate", "switch", "restore"] as const;
export type RewindReason = (typeof REWIND_REASONS)[number];

export function rewindMarker(
  targetInvocationId: string,
  stateDelta: StateDelta,
  artifactDelta: ArtifactDelta,
  reason: RewindReason,
): AdkEvent {
  return {
    id: randomUUID(),
    invocation_id: newInvocationId(),
    author: "user",
    timestamp: Date.now() / 1000,
    actions: {
      state_delta: stateDelta,
      artifact_delta: artifactDelta,
      rewind_before_invocation_id: targetInvocationId,
    },
    custom_metadata: { retrace_reason: reason },
  };
}
