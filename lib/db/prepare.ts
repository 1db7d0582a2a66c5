/** Work done once when a database opens, after its migrations: data backfills and the configured app state. */
import { sql } from "drizzle-orm";
import { config } from "@/lib/config";
import { buildInvocationTree } from "@/lib/session/versions";
import type { Database } from "./database";
import { writeAppState } from "./state";

/** Chats stored before invocations were recorded get their tree by one replay of their log. */
async function buildMissingTrees(db: Database) {
  const pending = await db.all<{ id: string }>(sql`SELECT id FROM sessions WHERE NOT tree_built`);
  for (const { id } of pending) {
    await db.write(async (tx) => {
      const events = await tx.all<{ seq: number; invocationId: string; markerParent: number | null }>(sql`
        SELECT seq, invocation_id AS "invocationId", marker_parent AS "markerParent" FROM events WHERE session_id = ${id} ORDER BY seq`);
      const { nodes, tailSeq } = buildInvocationTree(events);
      await tx.run(sql`DELETE FROM invocations WHERE session_id = ${id}`);
      for (const n of nodes) {
        await tx.run(sql`
          INSERT INTO invocations (session_id, invocation_id, first_seq, after_invocation_id, depth, is_marker)
          VALUES (${id}, ${n.invocationId}, ${n.firstSeq}, ${n.afterInvocationId}, ${n.depth}, ${n.isMarker})`);
      }
      await tx.run(sql`UPDATE sessions SET tail_seq = ${tailSeq}, tree_built = ${true} WHERE id = ${id}`);
    });
  }
}

/** The agents configuration's `app_state`: the operator's app-wide state, set at every start. */
async function applyConfiguredAppState(db: Database) {
  const configured = Object.entries(config().appState);
  if (configured.length === 0) return;
  await db.write(async (tx) => {
    for (const [agent, state] of configured) await writeAppState(tx, agent, state);
  });
}

export async function prepareDatabase(db: Database) {
  await buildMissingTrees(db);
  await applyConfiguredAppState(db);
}
