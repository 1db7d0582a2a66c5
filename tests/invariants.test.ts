import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/connection";
import { forkSession, rewindSession } from "@/lib/db/queries";
import { checkInvariants } from "@/lib/db/tx/invariants";
import { event, fixture } from "./helpers";

describe("the invariant checker", () => {
  async function busySession() {
    const f = await fixture({ seeded: 1 });
    await f.save("a.txt", "v0");
    await f.append(event("i1", { author: "user", text: "q1" }), event("i1", { state: { k: 1 }, artifacts: { "a.txt": 0 } }));
    await f.append(event("i2", { author: "user", text: "q2" }), event("i2", { state: { k: 2, seeded: null } }));
    await rewindSession(f.userId, f.sessionId, "i2");
    await f.append(event("i3", { author: "user", text: "q3" }));
    await forkSession(f.userId, f.sessionId, { invocationId: "i1" });
    return f;
  }

  it("passes a database the store wrote", async () => {
    await busySession();
    expect(await checkInvariants(await getDb())).toEqual([]);
  });

  it.each([
    [
      "state drifts from the log",
      (id: string) => sql`UPDATE sessions SET state = '{"k":99}' WHERE id = ${id}`,
      /state differs from a fresh replay/,
    ],
    ["a seq goes missing", (id: string) => sql`DELETE FROM events WHERE session_id = ${id} AND seq = 2`, /seq 3 where 2 was expected/],
    [
      "a marker's link is wrong",
      (id: string) => sql`UPDATE events SET marker_parent = 0 WHERE session_id = ${id} AND marker_parent IS NOT NULL`,
      /marker_parent 0/,
    ],
    [
      "the derived delta column lies",
      (id: string) => sql`UPDATE events SET state_delta = '{"k":5}' WHERE session_id = ${id} AND seq = 2`,
      /state_delta column/,
    ],
    [
      "a turn's parent is wrong",
      (id: string) => sql`UPDATE invocations SET after_invocation_id = NULL WHERE session_id = ${id} AND invocation_id = 'i3'`,
      /invocation tree differs/,
    ],
    ["the tail is wrong", (id: string) => sql`UPDATE sessions SET tail_seq = 1 WHERE id = ${id}`, /tail_seq 1/],
  ])("catches a corrupted row: %s", async (_, corruption, expected) => {
    const f = await busySession();
    const db = await getDb();
    await db.run(corruption(f.sessionId));
    expect((await checkInvariants(db)).join("\n")).toMatch(expected);
  });
});
