/** What only the PostgreSQL store does: prepared statements that outlive a schema change, connections that break. */
import { sql } from "drizzle-orm";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/connection";
import { preparedGeneration } from "@/lib/db/postgres";
import { getSession, renameSession } from "@/lib/db/queries";
import { isStoreUnavailable } from "@/lib/errors";
import { fixture } from "./helpers";

describe.runIf(process.env.TEST_DIALECT === "postgres")("prepared statements", () => {
  it("a table that gained a column under them (another instance migrated it) costs a retry, not an error", async () => {
    const f = await fixture();
    // The pool hands the last released connection out first: these prepare their statements on it.
    for (let i = 0; i < 3; i++) await renameSession(f.userId, f.sessionId, `name ${i}`);
    const db = await getDb();
    await db.run(sql`ALTER TABLE sessions ADD COLUMN added_by_a_newer_release integer`);
    const before = preparedGeneration();
    try {
      await renameSession(f.userId, f.sessionId, "after the migration");
      expect((await getSession(f.userId, f.sessionId)).name).toBe("after the migration");
      expect(preparedGeneration()).toBe(before + 1); // the stale statement was met, and prepared anew
    } finally {
      await db.run(sql`ALTER TABLE sessions DROP COLUMN added_by_a_newer_release`);
    }
  });
});

describe.runIf(process.env.TEST_DIALECT === "postgres")("a connection that breaks inside a transaction", () => {
  it("fails the transaction as an outage, never as an uncaught error, and the pool goes on without it", async () => {
    const db = await getDb();
    const other = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await other.connect();
    try {
      const failed = await db
        .write(async (tx) => {
          const backend = await tx.one<{ pid: number }>(sql`SELECT pg_backend_pid() AS pid`);
          // What a server restart does to it: the connection is cut while the transaction waits between statements.
          await other.query("SELECT pg_terminate_backend($1)", [backend?.pid]);
          await new Promise((resolve) => setTimeout(resolve, 300));
          await tx.one(sql`SELECT 1 AS one`);
        })
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(isStoreUnavailable(failed)).toBe(true);
      for (let i = 0; i < 10; i++) expect(await db.read((tx) => tx.one(sql`SELECT 1 AS one`))).toEqual({ one: 1 });
    } finally {
      await other.end();
    }
  });
});
