/** Statements a transaction issues together (pipelined on PostgreSQL): none outlives its transaction. */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/client";
import { type Executor, together } from "@/lib/db/database";
import { getSession } from "@/lib/db/queries";
import { fixture } from "./helpers";

const rename = (tx: Executor, id: string, name: string) => tx.run(sql`UPDATE sessions SET name = ${name} WHERE id = ${id}`);

describe("a transaction's statements", () => {
  it("issued after it ended are refused, and write nothing", async () => {
    const f = await fixture();
    const db = await getDb();
    let late: Promise<unknown> = Promise.resolve();
    await db.write(async (tx) => {
      late = new Promise((resolve) => setTimeout(resolve, 20)).then(() => rename(tx, f.sessionId, "too late"));
    });
    await expect(late).rejects.toThrow("A statement was issued after its transaction ended");
    expect((await getSession(f.userId, f.sessionId)).name).toBe("Test chat");
  });

  it("issued together all settle before the first failure rolls the transaction back", async () => {
    const f = await fixture();
    const db = await getDb();
    const failing = async (tx: Executor) => {
      await tx.one(sql`SELECT 1 AS one`);
      throw new Error("refused");
    };
    // The rename is issued behind the statement that fails and runs after it: it must not outlive the transaction.
    let renamed: string | undefined;
    const slowRename = async (tx: Executor) => {
      await tx.one(sql`SELECT 1 AS one`);
      await tx.one(sql`SELECT 1 AS one`);
      await rename(tx, f.sessionId, "half done");
      renamed = "before the rollback";
    };
    await expect(db.write((tx) => together([failing(tx), slowRename(tx)]))).rejects.toThrow("refused");
    expect(renamed).toBe("before the rollback");
    expect((await getSession(f.userId, f.sessionId)).name).toBe("Test chat");
  });

  it("issued together report the statement that failed, not those it aborted behind it", async () => {
    const f = await fixture();
    const db = await getDb();
    // The failing statement settles through more awaits than the one behind it, which PostgreSQL then
    // refuses as "transaction aborted": that refusal can reach `together` first.
    const deep = async (tx: Executor) => (async () => (async () => tx.one(sql`SELECT * FROM no_such_table`))())();
    const behind = (tx: Executor) => tx.one(sql`SELECT 1 AS one`);
    for (let i = 0; i < 20; i++) {
      await expect(db.write((tx) => together([deep(tx), behind(tx)]))).rejects.toThrow(/no_such_table/);
    }
    expect((await getSession(f.userId, f.sessionId)).name).toBe("Test chat");
  });
});
