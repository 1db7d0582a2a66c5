import { randomUUID } from "node:crypto";
import { deepEqual, scopeOf } from "./state";
import type { AdkEvent, ArtifactDelta, State, StateDelta } from "./types";

export function newInvocationId(): string {
  return `e-${randomUUID()}`;
}

/** The delta that turns the current session state back into the state at the boundary (SPEC §2.1 step 3). */
export function rewindStateDelta(current: State, atBoundary: State): StateDelta {
  const delta: StateDelta = {};
  for (const [key, value] of Object.entries(atBoundary)) {
    if (scopeOf(key) === "session" && !deepEqual(current[key], value)) delta[key] = value;
  }
  for (const key of Object.keys(current)) {
    if (scopeOf(key) === "session" && !(key in atBoundary)) delta[key] = null;
  }
  return delta;
}

/** The version each file had as last recorded by `artifact_delta`s, in order. */
export function recordedVersions(deltas: Iterable<ArtifactDelta>): Record<string, number> {
  const versions: Record<string, number> = {};
  for (const delta of deltas) Object.assign(versions, delta);
  return versions;
}

/** A file to restore: `restore` is the boundary version whose content is copied, null for a tombstone. */
export interface ArtifactRestore {
  filename: string;
  restore: number | null;
}

/** Session-scoped files whose recorded version moved after the boundary (SPEC §2.1 step 4). */
export function rewindArtifactPlan(current: Record<string, number>, atBoundary: Record<string, number>): ArtifactRestore[] {
  return Object.keys(current)
    .filter((filename) => !filename.startsWith("user:") && current[filename] !== atBoundary[filename])
    .sort()
    .map((filename) => ({ filename, restore: atBoundary[filename] ?? null }));
}

/** Why a rewind happened, kept on its marker (`custom_metadata.retrace_reason`) so the UI can say it. */
export type RewindReason = "rewind" | "undo" | "edit" | "regenerate" | "switch" | "restore";

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
