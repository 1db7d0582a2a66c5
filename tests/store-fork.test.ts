import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/connection";
import { one } from "@/lib/db/database";
import {
  appendEvents,
  deleteSession,
  forkSession,
  getSession,
  getTask,
  listArtifacts,
  listEvents,
  listSessions,
  listTasks,
  loadArtifact,
  renameSession,
  rewindSession,
  saveTask,
} from "@/lib/db/queries";
import type { SessionRow } from "@/lib/db/rows";
import { checkInvariants } from "@/lib/db/tx/invariants";
import { taskOfMessage, taskRowOfMessage } from "../lib/db/tx/tasks";
import { chatView, completedTask, event, fixture, holdTurn, texts } from "./helpers";
import { count } from "./support/db";

/** Three turns, each with a state change, a file version and a task. */
async function threeTurns() {
  const f = await fixture({ tone: "dry" });
  for (const [i, inv] of ["inv1", "inv2", "inv3"].entries()) {
    const saved = await f.save("notes.txt", `notes v${i}`);
    await f.append(
      event(inv, { author: "user", text: `q${i + 1}` }),
      event(inv, { text: `a${i + 1}`, state: { step: i + 1, [`k${i + 1}`]: true }, artifacts: { "notes.txt": saved.version } }),
    );
    await saveTask(f.userId, f.sessionId, {
      kind: "task",
      id: `task-${inv}`,
      contextId: f.sessionId,
      status: { state: "completed" },
      metadata: { kagent_invocation_id: inv },
    });
  }
  return f;
}

const events = async (userId: string, sessionId: string, view: "all" | "effective" = "all") =>
  (await listEvents(userId, sessionId, view)).items;
const tasks = async (userId: string, sessionId: string) => (await listTasks(userId, sessionId)).items;
const fileText = async (userId: string, sessionId: string, name: string) => (await loadArtifact(userId, sessionId, name)).data.toString();

async function snapshot(userId: string, sessionId: string) {
  return JSON.stringify([
    await getSession(userId, sessionId),
    await listEvents(userId, sessionId),
    await listTasks(userId, sessionId, { includeRewound: true }),
    await listArtifacts(userId, sessionId),
  ]);
}

describe("fork", () => {
  it("before a middle invocation: events, state, files and tasks up to the boundary", async () => {
    const f = await threeTurns();
    const before = await snapshot(f.userId, f.sessionId);
    const fork = await forkSession(f.userId, f.sessionId, { invocationId: "inv2" });
    expect(fork.name).toBe("Fork of Test chat");
    expect(fork.forked_from_session_id).toBe(f.sessionId);
    expect(fork.forked_before_invocation_id).toBe("inv2");
    expect(fork.forked_from_name).toBe("Test chat");
    expect(fork.state).toEqual({ tone: "dry", step: 1, k1: true });
    const copied = await events(f.userId, fork.id);
    const original = (await events(f.userId, f.sessionId)).slice(0, 2);
    expect(texts(copied)).toEqual(["q1", "a1"]);
    expect(copied.map((e) => e.invocation_id)).toEqual(original.map((e) => e.invocation_id));
    expect(copied.map((e) => e.id)).not.toEqual(original.map((e) => e.id));
    expect(new Set(copied.map((e) => e.id)).size).toBe(2);
    expect(await fileText(f.userId, fork.id, "notes.txt")).toBe("notes v0");
    await expect(loadArtifact(f.userId, fork.id, "notes.txt", 1)).rejects.toThrow();
    const forkTasks = await tasks(f.userId, fork.id);
    expect(forkTasks.map((t) => t.metadata?.kagent_invocation_id)).toEqual(["inv1"]);
    // An inherited task shows the fork's id and the stored one (lib/db/tx/log.ts).
    expect(forkTasks[0].id).toBe(`${fork.id}:task-inv1`);
    expect(forkTasks[0].contextId).toBe(fork.id);
    expect(await getTask(f.userId, forkTasks[0].id)).toEqual(forkTasks[0]);
    expect(forkTasks[0].history?.map((m) => [m.contextId, m.taskId, m.messageId])).toEqual(
      copied.map((e) => [fork.id, forkTasks[0].id, e.id]),
    );
    expect(forkTasks[0].history?.[0].metadata?.kagent_invocation_id).toBe("inv1");
    const withoutForks = (s: string) => s.replace(/"forks":\[[^\]]*\]/, "");
    expect(withoutForks(await snapshot(f.userId, f.sessionId))).toBe(withoutForks(before));
    expect((await getSession(f.userId, f.sessionId)).forks.map((x) => x.id)).toEqual([fork.id]);
  });

  it("before the first invocation: an empty chat with the initial state", async () => {
    const f = await threeTurns();
    const fork = await forkSession(f.userId, f.sessionId, { invocationId: "inv1", name: "Fresh start" });
    expect(fork.name).toBe("Fresh start");
    expect(fork.state).toEqual({ tone: "dry" });
    expect(await events(f.userId, fork.id)).toEqual([]);
    expect(await tasks(f.userId, fork.id)).toEqual([]);
    expect(await listArtifacts(f.userId, fork.id)).toEqual([]);
  });

  it("before the last invocation, and without one (duplicate)", async () => {
    const f = await threeTurns();
    const last = await forkSession(f.userId, f.sessionId, { invocationId: "inv3" });
    expect(texts(await events(f.userId, last.id))).toEqual(["q1", "a1", "q2", "a2"]);
    expect(last.state).toEqual({ tone: "dry", step: 2, k1: true, k2: true });
    const copy = await forkSession(f.userId, f.sessionId);
    expect(copy.forked_before_invocation_id).toBeNull();
    expect(texts(await events(f.userId, copy.id))).toEqual(["q1", "a1", "q2", "a2", "q3", "a3"]);
    expect(copy.state).toEqual((await getSession(f.userId, f.sessionId)).state);
    expect(await fileText(f.userId, copy.id, "notes.txt")).toBe("notes v2");
    expect(await tasks(f.userId, copy.id)).toHaveLength(3);
  });

  it("a fork of a rewound session has the source's effective history before the boundary", async () => {
    const f = await threeTurns();
    await rewindSession(f.userId, f.sessionId, "inv2");
    await f.append(event("inv4", { author: "user", text: "q4", state: { step: 4 } }));
    await f.append(event("inv5", { author: "user", text: "q5" }));
    const fork = await forkSession(f.userId, f.sessionId, { invocationId: "inv5" });
    expect(texts(await events(f.userId, fork.id, "effective"))).toEqual(["q1", "a1", "q4"]);
    expect(fork.state).toEqual({ tone: "dry", step: 4, k1: true });
    expect(await fileText(f.userId, fork.id, "notes.txt")).toBe("notes v0");
    expect((await tasks(f.userId, fork.id)).map((t) => t.metadata?.kagent_invocation_id)).toEqual(["inv1"]);
  });

  it("rewind inside the fork leaves the source untouched; undo works in the fork", async () => {
    const f = await threeTurns();
    const fork = await forkSession(f.userId, f.sessionId);
    const before = await snapshot(f.userId, f.sessionId);
    const { event: marker, session } = await rewindSession(f.userId, fork.id, "inv2");
    expect(session.state).toEqual({ tone: "dry", step: 1, k1: true });
    expect(await fileText(f.userId, fork.id, "notes.txt")).toBe("notes v0");
    expect(await snapshot(f.userId, f.sessionId)).toBe(before);
    await rewindSession(f.userId, fork.id, marker.invocation_id);
    expect(texts(await events(f.userId, fork.id, "effective"))).toEqual(["q1", "a1", "q2", "a2", "q3", "a3"]);
    expect(await fileText(f.userId, fork.id, "notes.txt")).toBe("notes v2");
  });

  it("a fork of a fork", async () => {
    const f = await threeTurns();
    const first = await forkSession(f.userId, f.sessionId, { invocationId: "inv3" });
    const second = await forkSession(f.userId, first.id, { invocationId: "inv2" });
    expect(second.name).toBe("Fork of Fork of Test chat");
    expect(second.forked_from_session_id).toBe(first.id);
    expect(texts(await events(f.userId, second.id))).toEqual(["q1", "a1"]);
    expect(second.state).toEqual({ tone: "dry", step: 1, k1: true });
  });

  it("errors: unknown invocation, another user's session (404 even mid-turn), a running turn — nothing created", async () => {
    const f = await threeTurns();
    const other = await fixture();
    const before = await count("sessions");
    await expect(forkSession(f.userId, f.sessionId, { invocationId: "nope" })).rejects.toThrow("Invocation ID not found: nope");
    await expect(forkSession(other.userId, f.sessionId)).rejects.toThrow("Session not found");
    const turn = await holdTurn(f);
    await expect(forkSession(f.userId, f.sessionId)).rejects.toMatchObject({ status: 409, code: "session_busy" });
    await expect(forkSession(other.userId, f.sessionId)).rejects.toMatchObject({ status: 404 });
    await turn.stop();
    expect(await count("sessions")).toBe(before);
    expect((await listSessions(other.userId)).items.map((s) => s.id)).toEqual([other.sessionId]);
  });

  it("copies state checkpoints so rewinds inside a long fork stay correct", async () => {
    const f = await fixture();
    await f.append(
      ...Array.from({ length: 600 }, (_, i) => event(`inv${i + 1}`, { author: "user", text: `q${i + 1}`, state: { n: i + 1 } })),
    );
    const fork = await forkSession(f.userId, f.sessionId, { invocationId: "inv550" });
    expect(fork.state).toEqual({ n: 549 });
    expect((await rewindSession(f.userId, fork.id, "inv300")).session.state).toEqual({ n: 299 });
  });
});

describe("fork and retries", () => {
  it("a fork starts with no A2A message ids: a send there is new, while the source still answers its retry", async () => {
    const f = await fixture();
    await f.append(event("inv1", { author: "user", text: "q1" }));
    const db = await getDb();
    await saveTask(f.userId, f.sessionId, {
      kind: "task",
      id: "t1",
      contextId: f.sessionId,
      status: { state: "completed" },
      metadata: { kagent_invocation_id: "inv1" },
    });
    await db.run(sql`UPDATE invocations SET message_id = 'm-1' WHERE session_id = ${f.sessionId}`);
    const fork = await forkSession(f.userId, f.sessionId);
    const retried = (id: string) =>
      db.read(async (tx) => {
        const [session, found] = await tx.batch([
          one<SessionRow>(sql`SELECT * FROM sessions WHERE id = ${id}`),
          taskRowOfMessage(id, "m-1"),
        ]);
        return taskOfMessage(tx, session as SessionRow, found);
      });
    expect(await retried(fork.id)).toBeNull();
    expect((await retried(f.sessionId))?.id).toBe("t1");
    // The deleted source keeps the rows the fork reads (a tombstone): the fork shows its task as before.
    await deleteSession(f.userId, f.sessionId);
    expect(await count("invocations", fork.id)).toBe(0);
    expect((await listTasks(f.userId, fork.id)).items.map((t) => t.id)).toEqual([`${fork.id}:t1`]);
    expect(await retried(fork.id)).toBeNull();
  });
});

describe("forks inherit their source's rows (copy-on-write)", () => {
  it("stores none of the inherited rows, and shows them under new ids that stay the same", async () => {
    const f = await threeTurns();
    await rewindSession(f.userId, f.sessionId, "inv3");
    const fork = await forkSession(f.userId, f.sessionId);
    const second = await forkSession(f.userId, fork.id);
    for (const table of ["events", "invocations", "state_checkpoints"] as const) {
      expect(await count(table, fork.id)).toBe(0);
    }
    const once = await chatView(f.userId, second.id);
    expect(await chatView(f.userId, second.id)).toEqual(once);
    const ids = [f.sessionId, fork.id, second.id];
    const eventIds = await Promise.all(ids.map(async (id) => (await events(f.userId, id)).map((e) => e.id)));
    expect(new Set(eventIds.flat()).size).toBe(3 * eventIds[0].length);
    expect(once.tasks.map((t) => t.id)).toEqual(["task-inv1", "task-inv2", "task-inv3"].map((t) => `${second.id}:${t}`));
    expect(await checkInvariants(await getDb())).toEqual([]);
  });

  it("a task id names the fork that shows it: another user, or a chat that does not share it, gets 404", async () => {
    const f = await threeTurns();
    const other = await fixture();
    const fork = await forkSession(f.userId, f.sessionId, { invocationId: "inv3" });
    await expect(getTask(other.userId, `${fork.id}:task-inv1`)).rejects.toMatchObject({ status: 404 });
    await expect(getTask(f.userId, `${f.sessionId}:task-inv1`)).rejects.toMatchObject({ status: 404 });
    await expect(getTask(f.userId, `${fork.id}:task-inv3`)).rejects.toMatchObject({ status: 404 });
    await expect(getTask(f.userId, `${other.sessionId}:task-inv1`)).rejects.toMatchObject({ status: 404 });
  });

  it("deleting the source, then the middle fork: the forks left keep what they showed, ids included", async () => {
    const f = await threeTurns();
    const fork = await forkSession(f.userId, f.sessionId, { invocationId: "inv3" });
    await addTurn(f.userId, fork.id);
    const second = await forkSession(f.userId, fork.id);
    const before = [await chatView(f.userId, fork.id), await chatView(f.userId, second.id)];
    await deleteSession(f.userId, f.sessionId);
    expect([await chatView(f.userId, fork.id), await chatView(f.userId, second.id)]).toEqual(before);
    expect(await checkInvariants(await getDb())).toEqual([]);
    await deleteSession(f.userId, fork.id);
    expect(await chatView(f.userId, second.id)).toEqual(before[1]);
    expect(await checkInvariants(await getDb())).toEqual([]);
    const { event: marker } = await rewindSession(f.userId, second.id, "inv2");
    expect(texts(await events(f.userId, second.id, "effective"))).toEqual(["q1", "a1"]);
    await rewindSession(f.userId, second.id, marker.invocation_id);
    expect(texts(await events(f.userId, second.id, "effective"))).toEqual(["q1", "a1", "q2", "a2", "q9"]);
  });

  it("an event for an invocation a fork inherits is refused, in the fork and in its source, and changes nothing", async () => {
    const f = await threeTurns();
    const fork = await forkSession(f.userId, f.sessionId, { invocationId: "inv3" });
    const before = [await chatView(f.userId, f.sessionId), await chatView(f.userId, fork.id)];
    await expect(appendEvents(f.userId, fork.id, [event("inv2", { text: "late" })])).rejects.toMatchObject({ status: 400 });
    await expect(appendEvents(f.userId, f.sessionId, [event("inv2", { text: "late" })])).rejects.toMatchObject({ status: 400 });
    await expect(
      saveTask(f.userId, f.sessionId, {
        kind: "task",
        id: "task-inv2",
        contextId: f.sessionId,
        status: { state: "failed" },
        metadata: { kagent_invocation_id: "inv2" },
      }),
    ).rejects.toMatchObject({ status: 400 });
    expect([await chatView(f.userId, f.sessionId), await chatView(f.userId, fork.id)]).toEqual(before);
    // The source's turn after the boundary is its own alone.
    await appendEvents(f.userId, f.sessionId, [event("inv3", { text: "late" })]);
    expect(await checkInvariants(await getDb())).toEqual([]);
  });

  it("event ids a client repeats in a fork stay distinct in a fork of it", async () => {
    const f = await threeTurns();
    const fork = await forkSession(f.userId, f.sessionId);
    const [first] = await events(f.userId, f.sessionId);
    await appendEvents(f.userId, fork.id, [{ ...event("inv9", { author: "user", text: "q9" }), id: first.id }]);
    const second = await forkSession(f.userId, fork.id);
    const ids = (await events(f.userId, second.id)).map((e) => e.id);
    expect(new Set(ids).size).toBe(7);
  });
});

describe("a turn waiting for the user's decision is copied, never inherited", () => {
  /** One finished turn, then `w`, whose task waits (as a paused tool call leaves it); `also`: events after it. */
  async function waitingChat(...also: ReturnType<typeof event>[]) {
    const f = await threeTurns();
    await f.append(event("w", { author: "user", text: "qw" }), event("w", { text: "aw", state: { waited: true } }), ...also);
    const waiting = {
      ...completedTask(f.sessionId, "w"),
      status: { state: "input-required" as const, timestamp: "2026-01-01T00:00:00.000Z" },
    };
    await saveTask(f.userId, f.sessionId, waiting);
    return f;
  }
  const sharedUntil = async (id: string) =>
    Number((await (await getDb()).one<{ n: number }>(sql`SELECT shared_until AS n FROM sessions WHERE id = ${id}`))?.n);

  it("Duplicate shares the rows before it and copies it as the copy's own, canceled; the source's stays waiting, its own", async () => {
    const f = await waitingChat();
    const before = await snapshot(f.userId, f.sessionId);
    const copy = await forkSession(f.userId, f.sessionId);
    expect(await sharedUntil(f.sessionId)).toBe(6);
    expect(await count("events", copy.id)).toBe(2);
    const shown = await tasks(f.userId, copy.id);
    expect(shown.map((t) => [t.id, t.status])).toEqual([
      ...["inv1", "inv2", "inv3"].map((inv) => [`${copy.id}:task-${inv}`, { state: "completed" }]),
      [`${copy.id}:task-w`, { state: "canceled", timestamp: "2026-01-01T00:00:00.000Z" }],
    ]);
    expect(await getTask(f.userId, `${copy.id}:task-w`)).toEqual(shown[3]);
    expect(texts(await events(f.userId, copy.id))).toEqual(texts(await events(f.userId, f.sessionId)));
    expect(copy.state).toEqual((await getSession(f.userId, f.sessionId)).state);
    const withoutForks = (s: string) => s.replace(/"forks":\[[^\]]*\]/, "");
    expect(withoutForks(await snapshot(f.userId, f.sessionId))).toBe(withoutForks(before));
    // The source's waiting turn still takes its events and task: it is no fork's.
    await f.append(event("w", { author: "user", text: "decided" }));
    await saveTask(f.userId, f.sessionId, completedTask(f.sessionId, "w"));
    const second = await forkSession(f.userId, copy.id);
    expect((await tasks(f.userId, second.id)).at(-1)?.status.state).toBe("canceled");
    await deleteSession(f.userId, f.sessionId);
    expect(await count("events", f.sessionId)).toBe(6);
    expect(await checkInvariants(await getDb(), [f.sessionId, copy.id, second.id])).toEqual([]);
  });

  it("a fork before it shares as before; one before a later invocation copies it and what follows", async () => {
    const f = await waitingChat(event("e-marker", { rewind: "w" }), event("after", { author: "user", text: "q after" }));
    const before = await forkSession(f.userId, f.sessionId, { invocationId: "w" });
    expect(await count("events", before.id)).toBe(0);
    const after = await forkSession(f.userId, f.sessionId, { invocationId: "after" });
    expect(await sharedUntil(f.sessionId)).toBe(6);
    expect(await count("events", after.id)).toBe(3);
    expect(texts(await events(f.userId, after.id, "effective"))).toEqual(["q1", "a1", "q2", "a2", "q3", "a3"]);
    expect((await tasks(f.userId, after.id)).map((t) => t.status.state)).toEqual(["completed", "completed", "completed"]);
    // Undo in the fork: its copy of the turn is back, canceled.
    await rewindSession(f.userId, after.id, "e-marker");
    expect((await tasks(f.userId, after.id)).at(-1)?.status.state).toBe("canceled");
    expect(await checkInvariants(await getDb(), [f.sessionId, before.id, after.id])).toEqual([]);
  });

  it("an invocation that began before it and has events after it is copied whole with it", async () => {
    const f = await waitingChat(event("inv2", { text: "late" }));
    const copy = await forkSession(f.userId, f.sessionId);
    expect(await sharedUntil(f.sessionId)).toBe(2);
    expect(await count("events", copy.id)).toBe(7);
    expect(texts(await events(f.userId, copy.id))).toEqual(texts(await events(f.userId, f.sessionId)));
    expect(await checkInvariants(await getDb(), [f.sessionId, copy.id])).toEqual([]);
  });
});

describe("a chain of forks", () => {
  it("shows every inherited task as <fork id>:<the id its turn was given>, however often flattening copied it", async () => {
    // 800 levels, a turn at each: ids that grew with every copy passed PostgreSQL's 2,704-byte index rows near 750.
    const f = await fixture();
    const given = new Map<string, string>();
    const longest: number[] = [];
    let id = f.sessionId;
    for (let depth = 1; depth <= 800; depth++) {
      const inv = `d${depth}`;
      await appendEvents(f.userId, id, [event(inv, { author: "user", text: inv }), event(inv, { text: `re ${inv}` })]);
      const taskId = randomUUID();
      given.set(inv, taskId);
      await saveTask(f.userId, id, { ...completedTask(id, inv), id: taskId });
      id = (await forkSession(f.userId, id)).id;
      if (depth % 100 === 0) {
        const stored = await (await getDb()).one<{ n: number }>(sql`SELECT MAX(LENGTH(task_id)) AS n FROM invocations`);
        longest.push(Number(stored?.n));
      }
    }
    expect(longest).toEqual(Array(8).fill(36 + 1 + 36));
    const shown = await tasks(f.userId, id);
    expect(shown).toHaveLength(800);
    for (const [i, task] of shown.entries()) {
      expect(task.id).toBe(`${id}:${given.get(task.metadata?.kagent_invocation_id as string)}`);
      if (i % 40 === 0) expect((await getTask(f.userId, task.id)).id).toBe(task.id);
    }
    expect(await checkInvariants(await getDb(), [id])).toEqual([]);
  }, 180_000);

  it("names each fork Fork of <source>, held to the 200 characters a chosen name may have", async () => {
    const f = await fixture();
    await renameSession(f.userId, f.sessionId, "😀".repeat(100));
    let id = f.sessionId;
    for (let depth = 1; depth <= 30; depth++) {
      const fork = await forkSession(f.userId, id);
      expect(fork.name.length).toBeLessThanOrEqual(200);
      expect(fork.name.isWellFormed()).toBe(true);
      expect(fork.name).toMatch(/^Fork of .*…$/u);
      if (depth === 1) expect(fork.name).toBe(`Fork of ${"😀".repeat(95)}…`);
      id = fork.id;
    }
    const row = await (await getDb()).one<SessionRow>(sql`SELECT * FROM sessions WHERE id = ${id}`);
    // What the quota charges a name (800 bytes) covers it.
    expect(Buffer.byteLength(row?.name ?? "")).toBeLessThanOrEqual(800);
    expect((await forkSession(f.userId, id, { name: "  Mine  " })).name).toBe("Mine");
  });
});

/** The UPDATE statements of a migration (drizzle/<dialect>/…_<name>.sql). */
function migrationUpdates(name: string) {
  const dir = path.join("drizzle", process.env.TEST_DIALECT === "postgres" ? "postgres" : "sqlite");
  const file = readdirSync(dir).find((f) => f.endsWith(`_${name}.sql`)) as string;
  return readFileSync(path.join(dir, file), "utf8")
    .split("--> statement-breakpoint")
    .map((s) => s.replace(/^--.*$/gm, "").trim())
    .filter((s) => s.startsWith("UPDATE"));
}

describe("a database written before forks copied waiting turns", () => {
  it("has each waiting turn in rows a fork inherits or copied in canceled, as a copy's is, and the turns no fork inherits left waiting", async () => {
    const waiting = (sessionId: string, inv: string) => ({
      ...completedTask(sessionId, inv),
      id: `${sessionId}-${inv}`,
      status: {
        state: "input-required" as const,
        timestamp: "2026-01-01T00:00:00.000Z",
        message: { kind: "message" as const, role: "agent" as const, messageId: "m", parts: [] },
      },
    });
    const f = await fixture();
    await f.append(event("shared", { author: "user", text: "q1" }), event("own", { author: "user", text: "q2" }));
    await saveTask(f.userId, f.sessionId, waiting(f.sessionId, "shared"));
    await saveTask(f.userId, f.sessionId, waiting(f.sessionId, "own"));
    // As a fork before "own" made before left it: "shared" in rows the fork shares.
    const db = await getDb();
    await db.run(sql`UPDATE sessions SET shared_until = 1 WHERE id = ${f.sessionId}`);
    // As a deep fork's `flatten` left it: "copied" in rows it copied in below its own, read as a piece.
    const g = await fixture();
    await g.append(event("copied", { author: "user", text: "q" }));
    await saveTask(g.userId, g.sessionId, waiting(g.sessionId, "copied"));
    await db.run(
      sql`UPDATE sessions SET inherited = ${JSON.stringify([{ session: g.sessionId, from: 1, to: 1 }])} WHERE id = ${g.sessionId}`,
    );
    expect(await checkInvariants(db, [f.sessionId, g.sessionId])).toEqual([
      `session ${f.sessionId}: turn shared waits for a decision in rows forks inherit`,
      `session ${g.sessionId}: turn copied waits for a decision in rows forks inherit`,
    ]);
    for (const statement of migrationUpdates("fork_waiting_turns")) await db.run(sql.raw(statement));
    expect((await tasks(f.userId, f.sessionId)).map((t) => t.status)).toEqual([
      { state: "canceled", timestamp: "2026-01-01T00:00:00.000Z" },
      {
        ...waiting(f.sessionId, "own").status,
        message: { ...waiting(f.sessionId, "own").status.message, contextId: f.sessionId, taskId: `${f.sessionId}-own` },
      },
    ]);
    expect((await tasks(g.userId, g.sessionId)).map((t) => t.status.state)).toEqual(["canceled"]);
    expect(await checkInvariants(db, [f.sessionId, g.sessionId])).toEqual([]);
  });
});

describe("a database written before task ids kept one prefix", () => {
  it("gets each copied task's id back to <fork id>:<the id its turn was given>, and finds them again", async () => {
    const f = await fixture();
    let id = f.sessionId;
    for (let depth = 1; depth <= 24; depth++) {
      await appendEvents(f.userId, id, [event(`d${depth}`, { author: "user", text: `d${depth}` })]);
      await saveTask(f.userId, id, { ...completedTask(id, `d${depth}`), id: randomUUID() });
      id = (await forkSession(f.userId, id)).id;
    }
    const db = await getDb();
    const copied = async () =>
      (
        await db.all<{ session_id: string; task_id: string }>(sql`SELECT session_id, task_id FROM invocations WHERE task_id LIKE '%:%'`)
      ).sort((a, b) => a.task_id.localeCompare(b.task_id));
    const copies = await copied();
    expect(copies.length).toBeGreaterThan(0);
    // As the code before wrote them: one more "<fork id>:" for each copy of a copy.
    for (const [i, copy] of copies.entries()) {
      const grown = `${copy.session_id}:${randomUUID()}:${randomUUID()}:${copy.task_id.slice(copy.session_id.length + 1)}`;
      if (i % 2 === 0) await db.run(sql`UPDATE invocations SET task_id = ${grown} WHERE task_id = ${copy.task_id}`);
    }
    for (const statement of migrationUpdates("share_names_task_ids")) await db.run(sql.raw(statement));
    expect(await copied()).toEqual(copies);
    for (const task of await tasks(f.userId, id)) expect((await getTask(f.userId, task.id)).id).toBe(task.id);
  }, 60_000);
});

/** One more turn in a chat ("q9"). */
async function addTurn(userId: string, sessionId: string) {
  await appendEvents(userId, sessionId, [event("inv9", { author: "user", text: "q9" })]);
}
