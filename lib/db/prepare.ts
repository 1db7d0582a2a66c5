/** Work done once when a database opens, after its migrations: data backfills and the configured app state. */
import { sql } from "drizzle-orm";
import { config } from "@/lib/config";
import { buildInvocationTree } from "@/lib/session/versions";
import type { Database } from "./database";
import { indexStoredRows } from "./tx/search-index";
import { writeAppState } from "./tx/state";

/** Chats stored before invocations were recorded get their tree by one replay of their log. */
async function buildMissingTrees(db: Database) {
  const pending = await db.all<{ id: string }>(sql`SELECT id FROM sessions WHERE NOT tree_built`);
  for (const { id } of pending) {
    await db.write(async (tx) => {
      const events = await tx.all<{ seq: number; invocationId: string; markerParent: number | null }>(sql`
        SELECT seq, invocation_id AS "invocationId", marker_parent AS "markerParent" FROM events WHERE session_id = ${id} ORDER BY seq`);
      const { nodes, tailSeq } = buildInvocationTree(events);
      const lastSeq = new Map(events.map((e) => [e.invocationId, e.seq]));
      for (const n of nodes) {
        await tx.run(sql`
          INSERT INTO invocations (session_id, invocation_id, first_seq, last_seq, after_invocation_id, depth, is_marker)
          VALUES (${id}, ${n.invocationId}, ${n.firstSeq}, ${lastSeq.get(n.invocationId)}, ${n.afterInvocationId}, ${n.depth}, ${n.isMarker})
          ON CONFLICT (session_id, invocation_id) DO UPDATE SET first_seq = excluded.first_seq, last_seq = excluded.last_seq,
            after_invocation_id = excluded.after_invocation_id, depth = excluded.depth, is_marker = excluded.is_marker`);
      }
      await tx.run(sql`UPDATE sessions SET tail_seq = ${tailSeq}, tree_built = ${true} WHERE id = ${id}`);
    });
  }
}

/** Chats stored before search get their messages indexed, one transaction each; another instance may be doing the same. */
async function indexOldChats(db: Database) {
  const pending = await db.all<{ id: string }>(sql`SELECT id FROM sessions WHERE NOT search_indexed ORDER BY updated_at, id`);
  for (const { id } of pending) {
    await db.write(async (tx) => {
      const row = await tx.one<{ user_id: string; search_indexed: boolean | number }>(
        sql`SELECT user_id, search_indexed FROM sessions WHERE id = ${id} ${tx.dialect.forUpdate}`,
      );
      if (!row || row.search_indexed) return;
      await indexStoredRows(tx, id, row.user_id);
      await tx.run(sql`UPDATE sessions SET search_indexed = ${true} WHERE id = ${id}`);
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
  await indexOldChats(db);
  await applyConfiguredAppState(db);
}
