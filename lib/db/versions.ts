/** Versions (docs/semantics.md): siblings of a turn, the chat's heads, switching between branches. */
import type { Task } from "@/lib/task/types";
import { inSpan } from "@/lib/telemetry/trace";
import { getDb } from "./connection";
import { claimSession } from "./tx/claim";
import { switchTx } from "./tx/rewind";
import { requireSession, sessionRecord } from "./tx/sessions";
import { turnTasks } from "./tx/task-reads";
import { versionsOf } from "./tx/versions";
import type { VersionInfo } from "./types";

/**
 * Shows the branch holding `invocationId`: nothing to do when the chat shows it, else a rewind before
 * the marker that ended the latest head showing it — one marker, undoable like any rewind.
 */
export async function switchSession(userId: string, sessionId: string, invocationId: string) {
  const db = await getDb();
  const change = () =>
    db.write(async (tx) => {
      const row = await claimSession(tx, userId, sessionId);
      const event = await switchTx(tx, row, invocationId);
      return { event, session: await sessionRecord(tx, event ? await requireSession(tx, userId, sessionId) : row) };
    });
  return inSpan("retrace.switch", { "retrace.session_id": sessionId }, change, invocationId);
}

/**
 * The chat's heads, newest first: the current one, then the one each rewind marker ended — each with what
 * tells it apart: its last turn (text, id, its place among its versions) and, for a past head, why it ended.
 */
export async function listVersions(userId: string, sessionId: string): Promise<VersionInfo[]> {
  const db = await getDb();
  return db.read(async (tx) => {
    const row = await requireSession(tx, userId, sessionId);
    return versionsOf(tx, row);
  });
}

/**
 * Two versions of a turn side by side (docs/api.md, "Compare versions"): the tasks of turns `a` and `b`, a
 * rewound one marked `rewound`; null for a turn without a task. One read, for the chat's owner.
 */
export async function compareVersions(
  userId: string,
  sessionId: string,
  a: string,
  b: string,
): Promise<{ a: Task | null; b: Task | null }> {
  const db = await getDb();
  return db.read(async (tx) => {
    const tasks = await turnTasks(tx, await requireSession(tx, userId, sessionId), [...new Set([a, b])]);
    return { a: tasks.get(a) ?? null, b: tasks.get(b) ?? null };
  });
}
