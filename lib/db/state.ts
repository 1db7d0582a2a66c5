/** State by scope: session keys in the session row (with checkpoints), `user:` and `app:` keys in their tables. */
import { sql } from "drizzle-orm";
import { NotFoundError } from "@/lib/errors";
import { parseState, stateOf } from "@/lib/session/state";
import type { State, StateDelta } from "@/lib/session/types";
import { getDb } from "./connection";
import { parseJson } from "./rows";
import { withScopedKeys, writeAppState } from "./tx/state";

/**
 * The merged state of the user's session (404 when it is not theirs), as a running turn's tools read
 * it: one statement, atomic on its own, where a read transaction took five round trips on PostgreSQL.
 */
export async function currentState(userId: string, sessionId: string): Promise<State> {
  const db = await getDb();
  const mine = sql`s.id = ${sessionId} AND s.user_id = ${userId} AND s.deleted_at IS NULL AND s.import_lease_until IS NULL`;
  const rows = await db.all<{ scope: number; key: string | null; value: string }>(sql`
    SELECT 0 AS scope, NULL AS key, s.state AS value FROM sessions s WHERE ${mine}
    UNION ALL
    SELECT 1, a.key, a.value FROM app_state a JOIN sessions s ON a.agent = s.agent WHERE ${mine}
    UNION ALL
    SELECT 2, u.key, u.value FROM user_state u JOIN sessions s ON u.user_id = s.user_id AND u.agent = s.agent WHERE ${mine}
    ORDER BY scope`);
  if (rows[0]?.scope !== 0) throw new NotFoundError("Session not found");
  return { ...withScopedKeys(parseState(rows[0].value), rows.slice(1) as { key: string; value: string }[]) };
}

/** The operator route: app-wide state of one agent changed; answers the agent's whole app state. */
export async function setAppState(agent: string, delta: StateDelta): Promise<State> {
  const db = await getDb();
  return db.write(async (tx) => {
    await writeAppState(tx, agent, delta);
    const rows = await tx.all<{ key: string; value: string }>(sql`SELECT key, value FROM app_state WHERE agent = ${agent} ORDER BY key`);
    return stateOf(Object.fromEntries(rows.map((r) => [r.key, parseJson(r.value)])));
  });
}
