/**
 * Every test gets an empty database built by the real migrations: a fresh in-memory SQLite one, or
 * (the `postgres` project) this file's own database in the throwaway cluster, emptied before each test.
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, inject } from "vitest";
import { closeDb, setDb } from "@/lib/db/connection";
import type { Database } from "@/lib/db/database";
import { openPostgres } from "@/lib/db/postgres";
import { openSqlite } from "@/lib/db/sqlite";

process.env.DATABASE_PATH = ":memory:";
process.env.AUTH_SECRET ??= "test-secret-of-sixteen-characters";

const TABLES =
  "users, sessions, events, invocations, state_checkpoints, app_state, user_state, artifacts, search_keys, search_texts, search_marks, " +
  "auth_users, auth_sessions, auth_accounts, auth_verifications, auth_passkeys, auth_rate_limits, api_tokens, invites, share_links, version_labels, todos, blobs, blob_chunks, uploads";

if (process.env.TEST_DIALECT === "postgres") {
  let db: Database;
  beforeAll(async () => {
    const server = inject("postgresUrl");
    const name = `test_${randomUUID().replaceAll("-", "")}`;
    const admin = new pg.Client({ connectionString: server });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE retrace_template`);
    await admin.end();
    process.env.TEST_DATABASE_URL = server.replace(/\/postgres$/, `/${name}`);
    db = await openPostgres(process.env.TEST_DATABASE_URL, 5);
  });
  beforeEach(async () => {
    await db.run(sql.raw(`TRUNCATE ${TABLES}`));
    setDb(db);
  });
  afterAll(() => closeDb());
} else {
  beforeEach(() => {
    setDb(openSqlite(":memory:"));
  });
}
