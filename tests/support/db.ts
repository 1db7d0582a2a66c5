import { sql } from "drizzle-orm";
import { getDb } from "@/lib/db/client";

/**
 * Every table, with a key that orders its rows the same on both dialects. Not `auth_rate_limits`: a refused
 * sign-in counts against its client's limit, which is bookkeeping, not data.
 */
const TABLES: Record<string, string> = {
  users: "id",
  sessions: "id",
  events: "session_id, seq",
  invocations: "session_id, invocation_id",
  state_checkpoints: "session_id, seq",
  app_state: "agent, key",
  user_state: "user_id, agent, key",
  artifacts: "scope, filename, version",
  auth_users: "id",
  auth_sessions: "id",
  auth_accounts: "id",
  auth_verifications: "id",
  auth_passkeys: "id",
  api_tokens: "id",
  invites: "email",
};

/** Every row of every table, in a stable order: "nothing was written" means before equals after. */
export async function tableRows() {
  const db = await getDb();
  const rows: Record<string, unknown[]> = {};
  for (const [table, key] of Object.entries(TABLES)) rows[table] = await db.all(sql.raw(`SELECT * FROM ${table} ORDER BY ${key}`));
  return rows;
}

/** Rows of a table, or of one session's rows in it. */
export async function count(table: keyof typeof TABLES, sessionId?: string): Promise<number> {
  const db = await getDb();
  const where = sessionId === undefined ? sql`` : sql` WHERE session_id = ${sessionId}`;
  return Number((await db.one<{ n: number }>(sql`SELECT COUNT(*) AS n FROM ${sql.raw(table)}${where}`))?.n);
}
