import { describe, expect, it } from "vitest";
import { markBusy } from "@/lib/agent/busy";
import { getDb } from "@/lib/db/client";
import {
  forkSession,
  getSession,
  listArtifacts,
  listEvents,
  listSessions,
  listTasks,
  loadArtifact,
  rewindSession,
  saveTask,
} from "@/lib/db/queries";
import { event, fixture, texts } from "./helpers";

/** Three turns, each with a state change, a file version and a task. */
function threeTurns() {
  const f = fixture({ tone: "dry" });
  for (const [i, inv] of ["inv1", "inv2", "inv3"].entries()) {
    const saved = f.save("notes.txt", `notes v${i}`);
    f.append(
      event(inv, { author: "user", text: `q${i + 1}` }),
      event(inv, { text: `a${i + 1}`, state: { step: i + 1, [`k${i + 1}`]: true }, artifacts: { "notes.txt": saved.version } }),
    );
    saveTask(f.userId, f.sessionId, {
      kind: "task",
      id: `task-${inv}`,
      contextId: f.sessionId,
      status: { state: "completed" },
      history: [
        {
          kind: "message",
          messageId: `m-${inv}`,
          role: "user",
          parts: [{ kind: "text", text: `q${i + 1}` }],
          contextId: f.sessionId,
          taskId: `task-${inv}`,
          metadata: { kagent_invocation_id: inv },
        },
      ],
      metadata: { kagent_invocation_id: inv },
    });
  }
  return f;
}

function snapshot(userId: string, sessionId: string) {
  return JSON.stringify([
    getSession(userId, sessionId),
    listEvents(userId, sessionId),
    listTasks(userId, sessionId, { includeRewound: true }),
    listArtifacts(userId, sessionId),
  ]);
}

describe("fork (SPEC §2.3)", () => {
  it("before a middle invocation: events, state, files and tasks up to the boundary", () => {
    const f = threeTurns();
    const before = snapshot(f.userId, f.sessionId);
    const fork = forkSession(f.userId, f.sessionId, { invocationId: "inv2" });
    expect(fork.name).toBe("Fork of Test chat");
    expect(fork.forked_from_session_id).toBe(f.sessionId);
    expect(fork.forked_before_invocation_id).toBe("inv2");
    expect(fork.forked_from_name).toBe("Test chat");
    expect(fork.state).toEqual({ tone: "dry", step: 1, k1: true });
    const copied = listEvents(f.userId, fork.id);
    const original = listEvents(f.userId, f.sessionId).slice(0, 2);
    expect(texts(copied)).toEqual(["q1", "a1"]);
    expect(copied.map((e) => e.invocation_id)).toEqual(original.map((e) => e.invocation_id));
    expect(copied.map((e) => e.id)).not.toEqual(original.map((e) => e.id));
    expect(new Set(copied.map((e) => e.id)).size).toBe(2);
    expect(loadArtifact(f.userId, fork.id, "notes.txt").data.toString()).toBe("notes v0");
    expect(() => loadArtifact(f.userId, fork.id, "notes.txt", 1)).toThrow();
    const tasks = listTasks(f.userId, fork.id);
    expect(tasks.map((t) => t.metadata?.kagent_invocation_id)).toEqual(["inv1"]);
    expect(tasks[0].id).not.toBe("task-inv1");
    expect(tasks[0].contextId).toBe(fork.id);
    expect(tasks[0].history?.[0].contextId).toBe(fork.id);
    expect(tasks[0].history?.[0].messageId).not.toBe("m-inv1");
    expect(tasks[0].history?.[0].metadata?.kagent_invocation_id).toBe("inv1");
    expect(snapshot(f.userId, f.sessionId).replace(/"forks":\[[^\]]*\]/, "")).toBe(before.replace(/"forks":\[[^\]]*\]/, ""));
    expect(getSession(f.userId, f.sessionId).forks.map((x) => x.id)).toEqual([fork.id]);
  });

  it("before the first invocation: an empty chat with the initial state", () => {
    const f = threeTurns();
    const fork = forkSession(f.userId, f.sessionId, { invocationId: "inv1", name: "Fresh start" });
    expect(fork.name).toBe("Fresh start");
    expect(fork.state).toEqual({ tone: "dry" });
    expect(listEvents(f.userId, fork.id)).toEqual([]);
    expect(listTasks(f.userId, fork.id)).toEqual([]);
    expect(listArtifacts(f.userId, fork.id)).toEqual([]);
  });

  it("before the last invocation, and without one (duplicate)", () => {
    const f = threeTurns();
    const last = forkSession(f.userId, f.sessionId, { invocationId: "inv3" });
    expect(texts(listEvents(f.userId, last.id))).toEqual(["q1", "a1", "q2", "a2"]);
    expect(last.state).toEqual({ tone: "dry", step: 2, k1: true, k2: true });
    const copy = forkSession(f.userId, f.sessionId);
    expect(copy.forked_before_invocation_id).toBeNull();
    expect(texts(listEvents(f.userId, copy.id))).toEqual(["q1", "a1", "q2", "a2", "q3", "a3"]);
    expect(copy.state).toEqual(getSession(f.userId, f.sessionId).state);
    expect(loadArtifact(f.userId, copy.id, "notes.txt").data.toString()).toBe("notes v2");
    expect(listTasks(f.userId, copy.id)).toHaveLength(3);
  });

  it("a fork of a rewound session has the source's effective history before the boundary", () => {
    const f = threeTurns();
    rewindSession(f.userId, f.sessionId, "inv2");
    f.append(event("inv4", { author: "user", text: "q4", state: { step: 4 } }));
    f.append(event("inv5", { author: "user", text: "q5" }));
    const fork = forkSession(f.userId, f.sessionId, { invocationId: "inv5" });
    expect(texts(listEvents(f.userId, fork.id, "effective"))).toEqual(["q1", "a1", "q4"]);
    expect(fork.state).toEqual({ tone: "dry", step: 4, k1: true });
    expect(loadArtifact(f.userId, fork.id, "notes.txt").data.toString()).toBe("notes v0");
    expect(listTasks(f.userId, fork.id).map((t) => t.metadata?.kagent_invocation_id)).toEqual(["inv1"]);
  });

  it("rewind inside the fork leaves the source untouched; undo works in the fork", () => {
    const f = threeTurns();
    const fork = forkSession(f.userId, f.sessionId);
    const before = snapshot(f.userId, f.sessionId);
    const { event: marker, session } = rewindSession(f.userId, fork.id, "inv2");
    expect(session.state).toEqual({ tone: "dry", step: 1, k1: true });
    expect(loadArtifact(f.userId, fork.id, "notes.txt").data.toString()).toBe("notes v0");
    expect(snapshot(f.userId, f.sessionId)).toBe(before);
    rewindSession(f.userId, fork.id, marker.invocation_id);
    expect(texts(listEvents(f.userId, fork.id, "effective"))).toEqual(["q1", "a1", "q2", "a2", "q3", "a3"]);
    expect(loadArtifact(f.userId, fork.id, "notes.txt").data.toString()).toBe("notes v2");
  });

  it("a fork of a fork", () => {
    const f = threeTurns();
    const first = forkSession(f.userId, f.sessionId, { invocationId: "inv3" });
    const second = forkSession(f.userId, first.id, { invocationId: "inv2" });
    expect(second.name).toBe("Fork of Fork of Test chat");
    expect(second.forked_from_session_id).toBe(first.id);
    expect(texts(listEvents(f.userId, second.id))).toEqual(["q1", "a1"]);
    expect(second.state).toEqual({ tone: "dry", step: 1, k1: true });
  });

  it("errors: unknown invocation, another user's session, a running turn — nothing created", () => {
    const f = threeTurns();
    const other = fixture();
    const count = () => (getDb().$client.prepare("SELECT COUNT(*) AS n FROM sessions").get() as { n: number }).n;
    const before = count();
    expect(() => forkSession(f.userId, f.sessionId, { invocationId: "nope" })).toThrow("Invocation ID not found: nope");
    expect(() => forkSession(other.userId, f.sessionId)).toThrow("Session not found");
    const release = markBusy(f.sessionId);
    expect(() => forkSession(f.userId, f.sessionId)).toThrow(/turn is running/);
    release();
    expect(count()).toBe(before);
    expect(listSessions(other.userId).map((s) => s.id)).toEqual([other.sessionId]);
  });

  it("copies state checkpoints so rewinds inside a long fork stay correct", () => {
    const f = fixture();
    for (let i = 1; i <= 600; i++) f.append(event(`inv${i}`, { author: "user", text: `q${i}`, state: { n: i } }));
    const fork = forkSession(f.userId, f.sessionId, { invocationId: "inv550" });
    expect(fork.state).toEqual({ n: 549 });
    expect(rewindSession(f.userId, fork.id, "inv300").session.state).toEqual({ n: 299 });
  });
});
