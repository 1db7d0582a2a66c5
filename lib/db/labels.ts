/**
 * Names and pins the user gives a chat's turns (docs/semantics.md, "The map"): one row per turn, keyed by
 * the chat that gave it, so a fork starts without its source's. Charged to the quota like any row.
 */
import { sql } from "drizzle-orm";
import type { TurnLabel } from "@/lib/session/tree";
import { getDb } from "./connection";
import { labelBytes } from "./tx/bytes";
import { requireTurn } from "./tx/layout";
import { requireSession } from "./tx/sessions";
import { checkQuota, type UserTouched } from "./tx/users";

export interface VersionLabel extends TurnLabel {
  invocation_id: string;
}

/**
 * Names and pins (or unpins) a turn of the user's chat; no name and no pin removes the row. A turn of the
 * chat's log, shared with a source or its own; a marker's id, or one the chat does not have, is
 * `invocation_not_found`. Allowed while a turn runs: it changes no part of the log.
 */
export async function labelVersion(userId: string, sessionId: string, invocationId: string, input: TurnLabel): Promise<VersionLabel> {
  const db = await getDb();
  return db.write(async (tx) => {
    const row = await requireSession(tx, userId, sessionId, true);
    await requireTurn(tx, row, invocationId);
    const label = input.label?.trim() || null;
    const kept = label !== null || input.pinned;
    const old = await tx.one<{ label: string | null }>(sql`
      SELECT label FROM version_labels WHERE session_id = ${row.id} AND invocation_id = ${invocationId}`);
    if (kept) {
      await tx.run(sql`
        INSERT INTO version_labels (session_id, invocation_id, label, pinned, updated_at)
        VALUES (${row.id}, ${invocationId}, ${label}, ${input.pinned}, ${Date.now()})
        ON CONFLICT (session_id, invocation_id) DO UPDATE SET label = excluded.label, pinned = excluded.pinned, updated_at = excluded.updated_at`);
    } else if (old) {
      await tx.run(sql`DELETE FROM version_labels WHERE session_id = ${row.id} AND invocation_id = ${invocationId}`);
    }
    const bytes = (kept ? labelBytes(invocationId, label) : 0) - (old ? labelBytes(invocationId, old.label) : 0);
    if (bytes !== 0) {
      await tx.run(sql`UPDATE sessions SET stored_bytes = stored_bytes + ${bytes} WHERE id = ${row.id}`);
      const touched = await tx.one<UserTouched>(sql`
        UPDATE users SET stored_bytes = stored_bytes + ${bytes} WHERE id = ${userId} RETURNING activity, stored_bytes`);
      checkQuota(userId, touched, bytes);
    }
    return { invocation_id: invocationId, label, pinned: kept && input.pinned };
  });
}
