import { describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/client";
import { checkInvariants } from "@/lib/db/invariants";
import { forkSession, rewindSession } from "@/lib/db/queries";
import { event, fixture } from "./helpers";

describe("the invariant checker", () => {
  function busySession() {
    const f = fixture({ seeded: 1 });
    f.save("a.txt", "v0");
    f.append(event("i1", { author: "user", text: "q1" }), event("i1", { state: { k: 1 }, artifacts: { "a.txt": 0 } }));
    f.append(event("i2", { author: "user", text: "q2" }), event("i2", { state: { k: 2, seeded: null } }));
    rewindSession(f.userId, f.sessionId, "i2");
    forkSession(f.userId, f.sessionId, { invocationId: "i1" });
    return f;
  }

  it("passes a database the store wrote", () => {
    busySession();
    expect(checkInvariants(getDb().$client)).toEqual([]);
  });

  it.each([
    ["state drifts from the log", "UPDATE sessions SET state = '{\"k\":99}' WHERE id = @id", /state differs from a fresh replay/],
    ["a seq goes missing", "DELETE FROM events WHERE session_id = @id AND seq = 2", /seq 3 where 2 was expected/],
    [
      "a marker's link is wrong",
      "UPDATE events SET marker_parent = 0 WHERE session_id = @id AND marker_parent IS NOT NULL",
      /marker_parent 0/,
    ],
    [
      "the derived delta column lies",
      "UPDATE events SET state_delta = '{\"k\":5}' WHERE session_id = @id AND seq = 2",
      /state_delta column/,
    ],
  ])("catches a corrupted row: %s", (_, corruption, expected) => {
    const f = busySession();
    const raw = getDb().$client;
    raw.pragma("foreign_keys = OFF");
    raw.prepare(corruption).run({ id: f.sessionId });
    expect(checkInvariants(raw).join("\n")).toMatch(expected);
  });
});
