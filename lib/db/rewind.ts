/** Rewind (docs/semantics.md): one transaction over the log, nothing deleted. */
import { sql } from "drizzle-orm";
import { type RewindReason, recordedVersions, rewindArtifactPlan, rewindMarker, rewindStateDelta } from "@/lib/session/rewind";
import { parseState } from "@/lib/session/state";
import type { AdkEvent, ArtifactDelta } from "@/lib/session/types";
import type { Task } from "@/lib/task/types";
import { restoreArtifacts } from "./artifacts";
import { getDb } from "./client";
import { type Executor, together } from "./database";
import { appendEventsTx } from "./events";
import { requireBoundary } from "./layout";
import { inPieces, logOf } from "./log";
import { parseJson, type SessionRow } from "./rows";
import { requireSession, sessionRecord } from "./sessions";
import { stateBefore } from "./state";
import { saveTaskTx, taskForMessage } from "./tasks";
import { claimSession } from "./turns";

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

/** Restores session state and files to just before `invocationId` (a marker's id undoes that rewind). */
export async function rewindSession(userId: string, sessionId: string, invocationId: string, reason: RewindReason = "rewind") {
  const db = await getDb();
  return db.write(async (tx) => {
    const row = await claimSession(tx, userId, sessionId);
    const event = await rewindTx(tx, row, invocationId, reason);
    return { event, session: await sessionRecord(tx, await requireSession(tx, userId, sessionId)) };
  });
}

/**
 * A2A's rewind control message without text: the rewind and the task that answers it, stored with the
 * message's id in one transaction — so a retried message finds that task and rewinds nothing twice.
 * Resolves with the task's id.
 */
export async function rewindForMessage(userId: string, sessionId: string, invocationId: string, reason: RewindReason, messageId: string) {
  const db = await getDb();
  return db.write(async (tx) => {
    const session = requireSession(tx, userId, sessionId, true);
    const [, existing] = await together([session, taskForMessage(tx, sessionId, messageId, session)]);
    if (existing) return existing.id;
    const row = await claimSession(tx, userId, sessionId);
    const marker = await rewindTx(tx, row, invocationId, reason);
    const task: Task = {
      kind: "task",
      id: marker.invocation_id,
      contextId: sessionId,
      status: { state: "completed", timestamp: new Date().toISOString() },
      metadata: { kagent_invocation_id: marker.invocation_id, kagent_rewind_before_invocation_id: invocationId },
    };
    await saveTaskTx(tx, row, task, messageId);
    return task.id;
  });
}
