/**
 * The "turn running" lock, as a lease on the session row: whichever app instance runs a turn renews
 * it; if that instance dies the lease expires and the session frees itself (docs/semantics.md, "Turns").
 */

import { sql } from "drizzle-orm";
import { getDb } from "./connection";
import { runningTaskId, type SessionRow } from "./rows";
import { closeAbandoned, renewLease } from "./tx/claim";
import { sessionOfTask } from "./tx/tasks";

/** Extends the turn's lease. `held: false` means another instance has taken the session: stop writing. */
export async function renewTurn(sessionId: string, taskId: string): Promise<{ held: boolean; cancel: boolean }> {
  return renewLease(await getDb(), sessionId, taskId);
}

/** Where a task's turn runs, if it is running: the session and the instance holding it. */
export async function runningTurnOf(userId: string, taskId: string): Promise<{ sessionId: string; owner: string } | null> {
  const db = await getDb();
  const row = await db.read((tx) => sessionOfTask(tx, userId, taskId));
  return runningTaskId(row) === taskId ? { sessionId: row.id, owner: row.turn_owner ?? "" } : null;
}

/** Asks the instance running a task to stop it (it sees the flag on its next renewal or notification). */
export async function requestCancel(sessionId: string, taskId: string): Promise<boolean> {
  const db = await getDb();
  return (await db.run(sql`UPDATE sessions SET turn_cancel = ${true} WHERE id = ${sessionId} AND turn_task_id = ${taskId}`)) > 0;
}

/** Closes every turn whose lease expired (its instance crashed): the sessions are free again. Returns their task ids. */
export async function reapAbandonedTurns(): Promise<string[]> {
  const db = await getDb();
  const expired = await db.all<{ id: string; turn_task_id: string }>(sql`
    SELECT id, turn_task_id FROM sessions WHERE turn_task_id IS NOT NULL AND turn_lease_until < ${Date.now()}`);
  const reaped: string[] = [];
  for (const { id, turn_task_id } of expired) {
    await db.write(async (tx) => {
      const row = await tx.one<SessionRow>(sql`SELECT * FROM sessions WHERE id = ${id} ${tx.dialect.forUpdate}`);
      if (row?.turn_task_id === turn_task_id && !runningTaskId(row)) {
        await closeAbandoned(tx, row);
        reaped.push(turn_task_id);
      }
    });
  }
  return reaped;
}
