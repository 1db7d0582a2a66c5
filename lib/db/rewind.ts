/** Rewind (docs/semantics.md): one transaction over the log, nothing deleted. */

import type { RewindReason } from "@/lib/session/rewind";
import type { Task } from "@/lib/task/types";
import { inSpan } from "@/lib/telemetry/trace";
import { getDb } from "./connection";
import { claimRow, claimSession } from "./tx/claim";
import { rewindTx } from "./tx/rewind";
import { requireSession, sessionOf, sessionRecord } from "./tx/sessions";
import { saveTaskTx, taskOfMessage, taskRowOfMessage } from "./tx/tasks";

/** Restores session state and files to just before `invocationId` (a marker's id undoes that rewind). */
export async function rewindSession(userId: string, sessionId: string, invocationId: string, reason: RewindReason = "rewind") {
  const db = await getDb();
  const rewind = () =>
    db.write(async (tx) => {
      const row = await claimSession(tx, userId, sessionId);
      const event = await rewindTx(tx, row, invocationId, reason);
      return { event, session: await sessionRecord(tx, await requireSession(tx, userId, sessionId)) };
    });
  return inSpan("retrace.rewind", { "retrace.session_id": sessionId, "retrace.reason": reason }, rewind, invocationId);
}

/**
 * A2A's rewind control message without text: the rewind and the task that answers it, stored with the
 * message's id in one transaction — so a retried message finds that task and rewinds nothing twice.
 * Resolves with the task's id.
 */
export async function rewindForMessage(userId: string, sessionId: string, invocationId: string, reason: RewindReason, messageId: string) {
  const db = await getDb();
  const rewind = () =>
    db.write(async (tx) => {
      const [session, found] = await tx.batch([sessionOf(tx.dialect, userId, sessionId, true), taskRowOfMessage(sessionId, messageId)]);
      const existing = await taskOfMessage(tx, session, found);
      if (existing) return existing.id;
      const row = await claimRow(tx, session);
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
  return inSpan("retrace.rewind", { "retrace.session_id": sessionId, "retrace.reason": reason }, rewind, invocationId);
}
