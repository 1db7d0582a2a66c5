/** Rewind (docs/semantics.md) inside the caller's transaction: one marker, state and files as before the boundary, nothing deleted. */
import { sql } from "drizzle-orm";
import { InvocationNotFoundError } from "@/lib/errors";
import { walkRewinds } from "@/lib/session/effective-history";
import { type RewindReason, recordedVersions, rewindArtifactPlan, rewindMarker, rewindStateDelta } from "@/lib/session/rewind";
import { parseState } from "@/lib/session/state";
import type { AdkEvent, ArtifactDelta } from "@/lib/session/types";
import { isVisible, latestHeadShowing } from "@/lib/session/versions";
import type { Executor } from "../database";
import { parseJson, type SessionRow } from "../rows";
import { appendEventsTx } from "./append";
import { restoreArtifacts } from "./artifacts";
import { markerLinks, requireBoundary, requireTurn } from "./layout";
import { inPieces, logOf } from "./log";
import { stateBefore } from "./state";

/** Recorded artifact versions (session files) before `boundary` and overall. */
export async function recordedArtifacts(tx: Executor, row: SessionRow, boundary: number) {
  const rows = await tx.all<{ seq: number; delta: string }>(sql`
    SELECT seq, artifact_delta AS delta FROM events WHERE ${inPieces(logOf(row).pieces)} AND artifact_delta IS NOT NULL ORDER BY seq`);
  const deltas = rows.map((r) => ({ seq: r.seq, delta: parseJson<ArtifactDelta>(r.delta) }));
  return {
    before: recordedVersions(deltas.filter((r) => r.seq < boundary).map((r) => r.delta)),
    current: recordedVersions(deltas.map((r) => r.delta)),
  };
}

/** Rewind before `invocationId` inside the caller's transaction: state and files back, one marker appended. */
export async function rewindTx(tx: Executor, row: SessionRow, invocationId: string, reason: RewindReason): Promise<AdkEvent> {
  const boundary = await requireBoundary(tx, logOf(row), invocationId);
  const stateDelta = rewindStateDelta(parseState(row.state), await stateBefore(tx, row, boundary));
  const recorded = await recordedArtifacts(tx, row, boundary);
  // File names are data: a name such as `__proto__` must stay an ordinary key.
  const artifactDelta: ArtifactDelta = Object.create(null);
  const plan = rewindArtifactPlan(recorded.current, recorded.before);
  const restored = await restoreArtifacts(tx, row, plan);
  for (const { filename } of plan) artifactDelta[filename] = restored.versions.get(filename) as number;
  const marker = rewindMarker(invocationId, stateDelta, artifactDelta, reason);
  const {
    events: [event],
  } = await appendEventsTx(tx, row, [marker], { bytes: restored.bytes });
  return event;
}

/**
 * Shows the branch holding `invocationId`: nothing to do (null) when the chat shows it, else a rewind before
 * the marker that ended the latest head showing it — one marker, undoable like any rewind.
 */
export async function switchTx(tx: Executor, row: SessionRow, invocationId: string): Promise<AdkEvent | null> {
  const log = logOf(row);
  const node = await requireTurn(tx, row, invocationId);
  const markers = await markerLinks(tx, log);
  if (isVisible(node.firstSeq, walkRewinds(row.last_seq, markers).segments)) {
    return null;
  }
  const marker = latestHeadShowing(node.firstSeq, markers);
  if (!marker) throw new InvocationNotFoundError(invocationId);
  return rewindTx(tx, row, marker, "switch");
}
