/** What only the PostgreSQL store does: prepared statements that outlive a schema change. */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/client";
import { preparedGeneration } from "@/lib/db/postgres";
import { getSession, renameSession } from "@/lib/db/queries";
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
