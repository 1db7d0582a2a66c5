import { describe, expect, it } from "vitest";
import { markBusy } from "@/lib/agent/busy";
import { getDb } from "@/lib/db/client";
import { appendEvents, getSession, listArtifacts, listEvents, listTasks, loadArtifact, rewindSession, saveTask } from "@/lib/db/queries";
import { AppError } from "@/lib/errors";
import { event, fixture, texts } from "./helpers";

/** ADK Python's rewind test set-up (T1/T2). */
function adkSetup() {
  const f = fixture();
  f.save("f1", "f1v0");
  f.append(event("inv1", { author: "user", text: "one", state: { k1: "v1" }, artifacts: { f1: 0 } }));
  f.save("f1", "f1v1");
  f.save("f2", "f2v0");
  f.append(event("inv2", { author: "user", text: "two", state: { k1: "v2", k2: "v2" }, artifacts: { f1: 1, f2: 0 } }));
  f.append(event("inv3", { author: "user", text: "three", state: { k2: "v3" } }));
  return f;
}

const fileText = (userId: string, sessionId: string, name: string, version?: number) =>
  loadArtifact(userId, sessionId, name, version).data.toString();

function counts() {
  const db = getDb().$client;
  return ["events", "artifacts", "tasks", "sessions", "state_checkpoints"].map(
    (t) => (db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n,
  );
}

describe("rewind (SPEC §2.1)", () => {
  it("T1: rewind before inv2 restores state and files", () => {
    const { userId, sessionId } = adkSetup();
    const { event: marker, session } = rewindSession(userId, sessionId, "inv2");
    expect(session.state).toEqual({ k1: "v1" });
    expect(fileText(userId, sessionId, "f1")).toBe("f1v0");
    expect(() => loadArtifact(userId, sessionId, "f2")).toThrow("Artifact not found: f2");
    expect(listArtifacts(userId, sessionId).map((a) => a.filename)).toEqual(["f1"]);
    expect(fileText(userId, sessionId, "f1", 1)).toBe("f1v1");
    expect(texts(listEvents(userId, sessionId, "effective"))).toEqual(["one"]);
    expect(marker.author).toBe("user");
    expect(marker.invocation_id).toMatch(/^e-[0-9a-f-]{36}$/);
    expect(marker.content).toBeUndefined();
    expect(marker.actions).toMatchObject({
      rewind_before_invocation_id: "inv2",
      state_delta: { k1: "v1", k2: null },
      artifact_delta: { f1: 2, f2: 1 },
    });
  });

  it("T2: rewind before inv3 appends a marker even when files are unchanged", () => {
    const { userId, sessionId } = adkSetup();
    const { event: marker, session } = rewindSession(userId, sessionId, "inv3");
    expect(session.state).toEqual({ k1: "v2", k2: "v2" });
    expect(fileText(userId, sessionId, "f1")).toBe("f1v1");
    expect(fileText(userId, sessionId, "f2")).toBe("f2v0");
    expect(marker.actions?.artifact_delta).toEqual({});
    expect(listEvents(userId, sessionId).at(-1)?.id).toBe(marker.id);
    expect(texts(listEvents(userId, sessionId, "effective"))).toEqual(["one", "two"]);
  });

  it("unknown invocation: clear error, nothing written", () => {
    const { userId, sessionId } = adkSetup();
    const before = counts();
    expect(() => rewindSession(userId, sessionId, "nope")).toThrow("Invocation ID not found: nope");
    try {
      rewindSession(userId, sessionId, "nope");
    } catch (e) {
      expect(e).toBeInstanceOf(AppError);
      expect((e as AppError).code).toBe("invocation_not_found");
      expect((e as AppError).status).toBe(400);
    }
    expect(counts()).toEqual(before);
    expect(getSession(userId, sessionId).state).toEqual({ k1: "v2", k2: "v3" });
  });

  it("another user's session is not found, and nothing changes", () => {
    const { sessionId } = adkSetup();
    const other = fixture();
    const before = counts();
    expect(() => rewindSession(other.userId, sessionId, "inv2")).toThrow("Session not found");
    expect(counts()).toEqual(before);
  });

  it("a running turn blocks rewind with session_busy", () => {
    const { userId, sessionId } = adkSetup();
    const release = markBusy(sessionId);
    try {
      expect(() => rewindSession(userId, sessionId, "inv2")).toThrow(/turn is running/);
    } finally {
      release();
    }
    expect(() => rewindSession(userId, sessionId, "inv2")).not.toThrow();
  });

  it("undo: rewinding before the marker restores state, files and turns", () => {
    const { userId, sessionId } = adkSetup();
    const { event: marker } = rewindSession(userId, sessionId, "inv2");
    const { session } = rewindSession(userId, sessionId, marker.invocation_id);
    expect(session.state).toEqual({ k1: "v2", k2: "v3" });
    expect(fileText(userId, sessionId, "f1")).toBe("f1v1");
    expect(fileText(userId, sessionId, "f2")).toBe("f2v0");
    expect(listArtifacts(userId, sessionId).map((a) => `${a.filename}@${a.version}`)).toEqual(["f1@3", "f2@2"]);
    expect(texts(listEvents(userId, sessionId, "effective"))).toEqual(["one", "two", "three"]);
  });

  it("stacked rewinds and new turns in between", () => {
    const f = adkSetup();
    rewindSession(f.userId, f.sessionId, "inv3");
    f.append(event("inv4", { author: "user", text: "four", state: { k3: "x" } }));
    const { session } = rewindSession(f.userId, f.sessionId, "inv2");
    expect(session.state).toEqual({ k1: "v1" });
    expect(texts(listEvents(f.userId, f.sessionId, "effective"))).toEqual(["one"]);
    f.append(event("inv5", { author: "user", text: "five" }));
    expect(texts(listEvents(f.userId, f.sessionId, "effective"))).toEqual(["one", "five"]);
  });

  it("rewinding to an invocation an earlier rewind already hid", () => {
    const f = adkSetup();
    rewindSession(f.userId, f.sessionId, "inv2");
    const { session } = rewindSession(f.userId, f.sessionId, "inv3");
    // State just before inv3 in the raw log: inv1 and inv2 applied.
    expect(session.state).toEqual({ k1: "v2", k2: "v2" });
    expect(texts(listEvents(f.userId, f.sessionId, "effective"))).toEqual(["one", "two"]);
    expect(fileText(f.userId, f.sessionId, "f2")).toBe("f2v0");
  });

  it("rewinding the first invocation returns to the initial state", () => {
    const f = fixture({ mode: "formal", list: [1, 2] });
    f.append(event("inv1", { author: "user", text: "one", state: { mode: "casual", other: 1 } }));
    const { session } = rewindSession(f.userId, f.sessionId, "inv1");
    // Keys given at creation are restored, not nulled (ADK Python issue #4933).
    expect(session.state).toEqual({ mode: "formal", list: [1, 2] });
    expect(listEvents(f.userId, f.sessionId, "effective")).toEqual([]);
  });

  it("deep equality: structurally equal values produce no delta", () => {
    const f = fixture({ obj: { a: [1, { b: 2 }] } });
    f.append(event("inv1", { author: "user", text: "one", state: { obj: { a: [1, { b: 2 }] } } }));
    f.append(event("inv2", { author: "user", text: "two", state: { obj: { a: [1, { b: 3 }] } } }));
    const { event: marker } = rewindSession(f.userId, f.sessionId, "inv2");
    expect(marker.actions?.state_delta).toEqual({ obj: { a: [1, { b: 2 }] } });
    const second = rewindSession(f.userId, f.sessionId, "inv2");
    expect(second.event.actions?.state_delta).toEqual({});
  });

  it("app: and user: state and user: files are not restored; temp: is never stored", () => {
    const f = fixture();
    f.save("user:profile.txt", "p0");
    f.append(event("inv1", { author: "user", text: "one", state: { k: 1, "app:a": 1, "user:u": 1 } }));
    f.save("user:profile.txt", "p1");
    f.append(
      event("inv2", {
        author: "user",
        text: "two",
        state: { k: 2, "app:a": 2, "user:u": 2, "temp:t": 9 },
        artifacts: { "user:profile.txt": 1 },
      }),
    );
    const { event: marker, session } = rewindSession(f.userId, f.sessionId, "inv2");
    expect(session.state).toEqual({ k: 1, "app:a": 2, "user:u": 2 });
    expect(marker.actions?.artifact_delta).toEqual({});
    expect(fileText(f.userId, f.sessionId, "user:profile.txt")).toBe("p1");
    const raw = listEvents(f.userId, f.sessionId);
    expect(JSON.stringify(raw)).not.toContain("temp:t");
  });

  it("a rewind crossing state checkpoints replays correctly", () => {
    const f = fixture();
    for (let i = 1; i <= 700; i++) f.append(event(`inv${i}`, { author: "user", text: `q${i}`, state: { n: i, [`k${i % 7}`]: i } }));
    const { session } = rewindSession(f.userId, f.sessionId, "inv600");
    expect(session.state.n).toBe(599);
    expect(session.state.k4).toBe(599);
    expect(session.state.k5).toBe(593);
  });

  it("tasks follow the effective history; include_rewound flags hidden ones", () => {
    const f = fixture();
    for (const inv of ["inv1", "inv2", "inv3"]) {
      f.append(event(inv, { author: "user", text: inv }));
      saveTask(f.userId, f.sessionId, {
        kind: "task",
        id: `task-${inv}`,
        contextId: f.sessionId,
        status: { state: "completed" },
        history: [],
        metadata: { kagent_invocation_id: inv },
      });
    }
    const { event: marker } = rewindSession(f.userId, f.sessionId, "inv2");
    expect(listTasks(f.userId, f.sessionId).map((t) => t.id)).toEqual(["task-inv1"]);
    const all = listTasks(f.userId, f.sessionId, { includeRewound: true });
    expect(all.map((t) => [t.id, t.metadata?.rewound ?? false, t.metadata?.rewound_by])).toEqual([
      ["task-inv1", false, undefined],
      ["task-inv2", true, marker.invocation_id],
      ["task-inv3", true, marker.invocation_id],
    ]);
  });

  it("events appended in a burst keep their order despite equal timestamps", () => {
    const f = fixture();
    const burst = Array.from({ length: 50 }, (_, i) => ({ ...event("inv1", { text: `e${i}` }), timestamp: 1 }));
    appendEvents(f.userId, f.sessionId, burst);
    expect(texts(listEvents(f.userId, f.sessionId))).toEqual(burst.map((_, i) => `e${i}`));
  });
});
