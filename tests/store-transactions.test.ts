/** Statements a transaction sends in a batch or ahead of other work (pipelined on PostgreSQL): none outlives its transaction. */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/connection";
import { ahead, chained, combined, type Executor, mapped, one, run } from "@/lib/db/database";
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

  it("sent ahead of work all settle before the first failure rolls the transaction back", async () => {
    const f = await fixture();
    const db = await getDb();
    // A statement sent ahead whose result is refused (as a missing row's 404 is).
    const refused = mapped(one(sql`SELECT 1 AS one`), () => {
      throw new Error("refused");
    });
    // The rename is issued behind the statement that is refused and runs after it: it must not outlive the transaction.
    let renamed: string | undefined;
    const slowRename = async (tx: Executor) => {
      await tx.one(sql`SELECT 1 AS one`);
      await tx.one(sql`SELECT 1 AS one`);
      await rename(tx, f.sessionId, "half done");
      renamed = "before the rollback";
    };
    await expect(db.write((tx) => ahead(tx, [refused], () => slowRename(tx)))).rejects.toThrow("refused");
    expect(renamed).toBe("before the rollback");
    expect((await getSession(f.userId, f.sessionId)).name).toBe("Test chat");
  });

  it("in one batch report the statement that failed, not those it aborted behind it", async () => {
    const f = await fixture();
    const db = await getDb();
    // PostgreSQL refuses the statements behind the failing one as "transaction aborted": that refusal can settle first.
    for (let i = 0; i < 20; i++) {
      await expect(
        db.write((tx) => tx.batch([one(sql`SELECT * FROM no_such_table`), one(sql`SELECT 1 AS one`), one(sql`SELECT 2 AS two`)])),
      ).rejects.toThrow(/no_such_table/);
      await expect(
        db.write((tx) => ahead(tx, [one(sql`SELECT * FROM no_such_table`)], () => tx.one(sql`SELECT 1 AS one`))),
      ).rejects.toThrow(/no_such_table/);
    }
    expect((await getSession(f.userId, f.sessionId)).name).toBe("Test chat");
  });

  it("in one batch run in the order given, parts of combined and chained statements included", async () => {
    const f = await fixture();
    const db = await getDb();
    const name = one<{ name: string }>(sql`SELECT name FROM sessions WHERE id = ${f.sessionId}`);
    const renamed = (to: string) => run(sql`UPDATE sessions SET name = ${to} WHERE id = ${f.sessionId}`);
    const results = await db.write((tx) =>
      tx.batch([
        renamed("a"),
        name,
        null,
        combined([renamed("b"), name], ([changed, read]) => `${changed}:${read?.name}`),
        chained<{ name: string }>(sql`UPDATE sessions SET name = 'c' WHERE id = ${f.sessionId} RETURNING name`, (returned) => [
          sql`UPDATE sessions SET state = ${"{}"} WHERE id = ${f.sessionId} AND name = 'c' AND ${returned("name")} = 'c'`,
        ]),
        mapped(name, (read) => read?.name.toUpperCase()),
      ]),
    );
    expect(results).toEqual([1, { name: "a" }, null, "1:b", [{ name: "c" }], "C"]);
  });

  it("in a batch that a decoder refuses report the first refusal in order, and commit nothing", async () => {
    const f = await fixture();
    const db = await getDb();
    const refused = (why: string) =>
      mapped(one(sql`SELECT 1 AS one`), () => {
        throw new Error(why);
      });
    await expect(
      db.write((tx) => tx.batch([run(sql`UPDATE sessions SET name = 'x' WHERE id = ${f.sessionId}`), refused("first"), refused("second")])),
    ).rejects.toThrow("first");
    expect((await getSession(f.userId, f.sessionId)).name).toBe("Test chat");
  });

  it("a chained statement's writes read the first one's row, outside a transaction too", async () => {
    const f = await fixture();
    const db = await getDb();
    const [rows] = await db.batch([
      chained<{ id: string }>(sql`UPDATE sessions SET name = 'chained' WHERE id = ${f.sessionId} RETURNING id`, (returned) => [
        sql`UPDATE users SET activity = activity + 1000 WHERE id = ${f.userId} AND ${returned("id")} = ${f.sessionId}`,
      ]),
    ]);
    expect(rows).toEqual([{ id: f.sessionId }]);
    expect((await getSession(f.userId, f.sessionId)).name).toBe("chained");
    const user = await db.one<{ activity: number }>(sql`SELECT activity FROM users WHERE id = ${f.userId}`);
    expect(Number(user?.activity)).toBeGreaterThanOrEqual(1000);
  });
});
