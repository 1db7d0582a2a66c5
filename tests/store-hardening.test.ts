/** Heavy or odd requests a hostile user can make: none stalls other users, and each leaves a consistent store. */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getAgent } from "@/lib/agent/registry";
import { startTurn } from "@/lib/agent/runtime";
import { getDb } from "@/lib/db/client";
import {
  appendEvents,
  createSession,
  createUser,
  deleteSession,
  forkSession,
  getSession,
  getTask,
  listEvents,
  listSessions,
  listTasks,
  rewindSession,
  saveTask,
} from "@/lib/db/queries";
import type { SessionRow } from "@/lib/db/rows";
import { checkInvariants } from "@/lib/db/tx/invariants";
import { flatten, logOf, MAX_PIECES } from "@/lib/db/tx/log";
import { chatView, completedTask, event, fixture, texts } from "./helpers";
import { countedBytesOf, storedBytesOf, writeEverywhere } from "./support/bytes";
import { count, countStatements } from "./support/db";
import { STALL_LIMIT_MS, withProbe } from "./support/stall";

describe("rewind markers in one append", () => {
  const marker = (i: number, target: string) => event(`m${i}`, { author: "user", rewind: target });

  it(`1,000 of them read the chat's markers once, with 10,000 there already; another user waits under ${STALL_LIMIT_MS} ms`, async () => {
    const f = await fixture();
    await f.append(event("a", { author: "user", text: "a" }), event("b", { author: "user", text: "b" }));
    for (let made = 0; made < 10_000; made += 1000) {
      await f.append(...Array.from({ length: 1000 }, (_, i) => marker(made + i, made % 2000 ? "b" : "a")));
    }
    const { result, count: reads } = await countStatements(/marker_parent IS NOT NULL/, () =>
      withProbe(() => f.append(...Array.from({ length: 1000 }, (_, i) => marker(10_000 + i, "b")))),
    );
    expect(reads).toBe(1);
    expect(result.worstMs).toBeLessThan(STALL_LIMIT_MS);
    // Each marker hid the one before it (its target's first event is earlier): the chat shows "a" again.
    expect(texts((await listEvents(f.userId, f.sessionId, "effective")).items)).toEqual(["a"]);
    expect(await checkInvariants(await getDb())).toEqual([]);
  }, 60_000);
});

describe("a fork before an interleaved invocation", () => {
  it("shows the shared invocation's events before its boundary only, and passes the invariants", async () => {
    const f = await fixture();
    await f.append(event("X", { author: "user", text: "x1" }), event("Y", { author: "user", text: "y" }), event("X", { text: "x2" }));
    await saveTask(f.userId, f.sessionId, completedTask(f.sessionId, "X"));
    const fork = await forkSession(f.userId, f.sessionId, { invocationId: "Y" });
    expect(texts((await listEvents(f.userId, fork.id)).items)).toEqual(["x1"]);
    const [task] = (await listTasks(f.userId, fork.id)).items;
    expect(task.history?.map((m) => m.parts.map((p) => (p as { text?: string }).text).join())).toEqual(["x1"]);
    expect((await getTask(f.userId, task.id)).history).toHaveLength(1);
    await appendEvents(f.userId, fork.id, [event("Z", { author: "user", text: "z" }), event("Z", { text: "z2" })]);
    expect(await checkInvariants(await getDb())).toEqual([]);
  });
});

/** A chat of `turns` turns of about `bytes` bytes each, a task, a state change and a file version each. */
async function chat(turns: number, bytes = 10) {
  const f = await fixture({ tone: "dry" });
  for (let i = 0; i < turns; i++) {
    const saved = await f.save("notes.txt", `v${i}`);
    await f.append(
      event(`t${i}`, { author: "user", text: `q${i} ${"x".repeat(bytes)}` }),
      event(`t${i}`, { text: `a${i}`, state: { step: i }, artifacts: { "notes.txt": saved.version } }),
    );
    await saveTask(f.userId, f.sessionId, completedTask(f.sessionId, `t${i}`));
  }
  return f;
}

describe("deleting a chat that forks share", () => {
  it("leaves every fork as it was, hides the chat everywhere, and collects its rows with its last fork", async () => {
    const f = await chat(4);
    const whole = await forkSession(f.userId, f.sessionId);
    const half = await forkSession(f.userId, f.sessionId, { invocationId: "t2" });
    const ofFork = await forkSession(f.userId, half.id, { invocationId: "t1" });
    const [sourceTask] = (await listTasks(f.userId, f.sessionId)).items;
    const before = await Promise.all([whole.id, half.id, ofFork.id].map((id) => chatView(f.userId, id)));
    await deleteSession(f.userId, f.sessionId);
    expect(await Promise.all([whole.id, half.id, ofFork.id].map((id) => chatView(f.userId, id)))).toEqual(before);
    await expect(getSession(f.userId, f.sessionId)).rejects.toMatchObject({ status: 404 });
    await expect(getTask(f.userId, sourceTask.id)).rejects.toMatchObject({ status: 404 });
    await expect(deleteSession(f.userId, f.sessionId)).rejects.toMatchObject({ status: 404 });
    expect((await listSessions(f.userId)).items.map((s) => s.id).sort()).toEqual([whole.id, half.id, ofFork.id].sort());
    expect((await getSession(f.userId, half.id)).forked_from_name).toBeNull();
    expect(await checkInvariants(await getDb())).toEqual([]);
    // The tombstone goes with the last chat that reads it, and with it everything it held.
    for (const id of [whole.id, half.id]) {
      await deleteSession(f.userId, id);
      expect(await checkInvariants(await getDb())).toEqual([]);
    }
    expect(await count("events", f.sessionId)).toBeGreaterThan(0);
    await deleteSession(f.userId, ofFork.id);
    expect(await count("sessions")).toBe(0);
    expect(await count("events")).toBe(0);
    expect(await count("invocations")).toBe(0);
  });

  it("keeps of a deleted chat only the rows live forks read", async () => {
    const f = await chat(10);
    const whole = await forkSession(f.userId, f.sessionId);
    const early = await forkSession(f.userId, whole.id, { invocationId: "t2" });
    await deleteSession(f.userId, f.sessionId);
    expect(await count("events", f.sessionId)).toBe(20);
    await deleteSession(f.userId, whole.id);
    expect(await count("events", f.sessionId)).toBe(4);
    expect(await count("invocations", f.sessionId)).toBe(2);
    expect(texts((await listEvents(f.userId, early.id)).items)).toEqual(["q0 xxxxxxxxxx", "a0", "q1 xxxxxxxxxx", "a1"]);
    expect(await checkInvariants(await getDb())).toEqual([]);
  });

  it("does not count a deleted chat against the chats quota", async () => {
    process.env.RETRACE_MAX_SESSIONS = "2";
    try {
      const f = await chat(1);
      await forkSession(f.userId, f.sessionId);
      await deleteSession(f.userId, f.sessionId);
      await expect(createSession(f.userId, {})).resolves.toMatchObject({ name: "New chat" });
    } finally {
      delete process.env.RETRACE_MAX_SESSIONS;
    }
  });

  it("collects a tombstone when two chats that read it are deleted at once", async () => {
    const f = await chat(2);
    const forks = [await forkSession(f.userId, f.sessionId), await forkSession(f.userId, f.sessionId)];
    await deleteSession(f.userId, f.sessionId);
    await Promise.all(forks.map((fork) => deleteSession(f.userId, fork.id)));
    expect(await count("sessions")).toBe(0);
  });

  it(`of many forks copies nothing: another user waits under ${STALL_LIMIT_MS} ms`, async () => {
    const f = await chat(10, 100_000);
    for (let i = 0; i < 40; i++) await forkSession(f.userId, f.sessionId);
    const { worstMs } = await withProbe(() => deleteSession(f.userId, f.sessionId));
    expect(worstMs).toBeLessThan(STALL_LIMIT_MS);
    expect(await count("events")).toBe(20);
  });
});

describe("a fork's pieces are bounded", () => {
  const piece = (session: string, from: number, to: number) => ({ session, from, to });

  it("copies the run of neighbouring pieces with the fewest rows, down to 8 pieces", () => {
    const few = Array.from({ length: MAX_PIECES }, (_, i) => piece(`s${i}`, i * 10 + 1, i * 10 + 10));
    expect(flatten(few, "f")).toEqual({ pieces: few, copy: [] });
    const many = [piece("a", 1, 1000), ...Array.from({ length: 16 }, (_, i) => piece(`s${i}`, 1001 + i, 1001 + i))];
    const { pieces, copy } = flatten(many, "f");
    expect(pieces).toHaveLength(8);
    expect(copy.map((p) => p.session)).toEqual(["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9"]);
    expect(pieces.slice(0, 2)).toEqual([piece("a", 1, 1000), piece("f", 1001, 1010)]);
    expect(pieces.flatMap((p) => [p.from, p.to])).toEqual([
      1, 1000, 1001, 1010, 1011, 1011, 1012, 1012, 1013, 1013, 1014, 1014, 1015, 1015, 1016, 1016,
    ]);
  });

  it("so a chain of 2,000 forks appends, sends, rewinds and forks at its end as at its start", async () => {
    // Each fork is charged for what it reads as if copied: the chain would near the default 1 GiB.
    process.env.RETRACE_MAX_STORED_BYTES = String(1e12);
    try {
      const f = await fixture();
      let id = f.sessionId;
      for (let depth = 1; depth <= 2000; depth++) {
        await appendEvents(f.userId, id, [event(`d${depth}`, { author: "user", text: `turn ${depth}`, state: { depth } })]);
        const fork = await forkSession(f.userId, id);
        const row = await (await getDb()).one<SessionRow>(sql`SELECT * FROM sessions WHERE id = ${fork.id}`);
        expect(logOf(row as SessionRow).pieces.length).toBeLessThanOrEqual(MAX_PIECES + 1);
        id = fork.id;
      }
      process.env.DEMO_WORD_DELAY_MS = "0";
      const { worstMs } = await withProbe(async () => {
        await appendEvents(f.userId, id, [event("last", { author: "user", text: "last" })]);
        const sent = await startTurn({ userId: f.userId, sessionId: id, agent: getAgent("demo"), text: "what is depth?" });
        expect((await sent.done).status.state).toBe("completed");
        await rewindSession(f.userId, id, "d1000");
        await forkSession(f.userId, id, { invocationId: "d1500" });
      });
      expect(worstMs).toBeLessThan(STALL_LIMIT_MS);
      expect((await getSession(f.userId, id)).state).toEqual({ depth: 999 });
      expect((await listEvents(f.userId, id, "effective")).items).toHaveLength(999);
      expect(await checkInvariants(await getDb(), [id])).toEqual([]);
    } finally {
      delete process.env.RETRACE_MAX_STORED_BYTES;
    }
  }, 180_000);
});

describe("the byte quota", () => {
  it("bounds what a user stores through every path, and its counter balances with the chats' own", async () => {
    process.env.RETRACE_MAX_STORED_BYTES = "1000000";
    try {
      const userId = await createUser();
      const refused = await writeEverywhere(userId, { rounds: 12 });
      const db = await getDb();
      expect(refused).toBeGreaterThan(0);
      const stored = await storedBytesOf(db, userId);
      const { counted, books } = await countedBytesOf(db, userId);
      expect(stored).toBeLessThanOrEqual(1_000_000);
      expect(counted).toBeGreaterThanOrEqual(stored);
      expect(counted).toBe(books);
      expect(await checkInvariants(db)).toEqual([]);
    } finally {
      delete process.env.RETRACE_MAX_STORED_BYTES;
    }
  }, 60_000);
});
