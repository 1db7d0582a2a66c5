import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { getAgent } from "@/lib/agent/registry";
import { cancelTurn, startTurn, type TurnUpdate, watchTurn } from "@/lib/agent/runtime";
import { getDb } from "@/lib/db/connection";
import {
  appendEvents,
  appendTurnEvents,
  beginTurn,
  createSession,
  deleteSession,
  endTurn,
  forkSession,
  getSession,
  getTask,
  historyAt,
  listEvents,
  listSessions,
  reapAbandonedTurns,
  renameSession,
  renewTurn,
  requestCancel,
  rewindSession,
  saveArtifact,
  switchSession,
} from "@/lib/db/queries";
import { checkInvariants } from "@/lib/db/tx/invariants";
import { messageText } from "@/lib/task/convert";
import type { Task } from "@/lib/task/types";
import { completedTask, event, type Fixture, fixture, holdTurn, texts } from "./helpers";
import { countTransactions, tableRows } from "./support/db";
import { sharedDatabase, startProcess } from "./support/processes";
import { STALL_LIMIT_MS, withProbe } from "./support/stall";

const demo = getAgent("demo");
const LEASE = "1500";

afterEach(() => {
  delete process.env.RETRACE_MAX_CONCURRENT_TURNS;
  delete process.env.RETRACE_TURN_LEASE_MS;
  delete process.env.DEMO_WORD_DELAY_MS;
});

describe("the turn lock", () => {
  it("while a turn runs, every write from outside it is 409 for the owner and 404 for anyone else, and nothing changes", async () => {
    const f = await fixture();
    await f.append(event("i1", { author: "user", text: "first" }));
    const stranger = await fixture();
    const turn = await holdTurn(f);
    const before = await tableRows();
    const writes: [string, (userId: string) => Promise<unknown>][] = [
      ["append", (u) => appendEvents(u, f.sessionId, [event("x", { author: "user", text: "injected" })])],
      ["save file", (u) => saveArtifact(u, f.sessionId, { filename: "x.txt", mimeType: "text/plain", data: Buffer.from("x") })],
      ["rewind", (u) => rewindSession(u, f.sessionId, "i1")],
      ["fork", (u) => forkSession(u, f.sessionId)],
      ["switch", (u) => switchSession(u, f.sessionId, "i1")],
      ["delete", (u) => deleteSession(u, f.sessionId)],
      ["turn", (u) => startTurn({ userId: u, sessionId: f.sessionId, agent: demo, text: "again" })],
    ];
    for (const [name, write] of writes) {
      await expect(write(f.userId), name).rejects.toMatchObject({ status: 409, code: "session_busy" });
      await expect(write(stranger.userId), name).rejects.toMatchObject({ status: 404, code: "not_found" });
    }
    expect(await tableRows()).toEqual(before);
    await turn.stop();
    expect((await getSession(f.userId, f.sessionId)).running_task_id).toBeNull();
    await expect(appendEvents(f.userId, f.sessionId, [event("i2", { author: "user", text: "now" })])).resolves.toHaveLength(1);
  });

  it("caps the turns one user runs at once (429 quota_exceeded)", async () => {
    process.env.RETRACE_MAX_CONCURRENT_TURNS = "1";
    const f = await fixture();
    const second = await createSession(f.userId);
    const turn = await holdTurn(f);
    await expect(startTurn({ userId: f.userId, sessionId: second.id, agent: demo, text: "hi" })).rejects.toMatchObject({
      status: 429,
      code: "quota_exceeded",
    });
    await turn.stop();
    await expect((await startTurn({ userId: f.userId, sessionId: second.id, agent: demo, text: "hi" })).done).resolves.toBeTruthy();
  });

  it("a send retried with the same messageId answers the task it started and runs no second turn", async () => {
    process.env.DEMO_WORD_DELAY_MS = "5";
    const f = await fixture();
    const send = () => startTurn({ userId: f.userId, sessionId: f.sessionId, agent: demo, text: "set color to red", messageId: "m-1" });
    const first = await send();
    const retry = await send();
    expect(retry.taskId).toBe(first.taskId);
    const [a, b] = await Promise.all([first.done, retry.done]);
    expect(b).toEqual(a);
    const late = await (await send()).done;
    expect(late).toEqual(a);
    expect((await listEvents(f.userId, f.sessionId)).items.filter((e) => e.author === "user")).toHaveLength(1);
  });

  it("Edit & resend commits its rewind with the new turn, or not at all; a retry of it runs nothing twice", async () => {
    process.env.DEMO_WORD_DELAY_MS = "0";
    const f = await fixture();
    const first = await (await startTurn({ userId: f.userId, sessionId: f.sessionId, agent: demo, text: "set color to red" })).done;
    const invocationId = first.metadata?.kagent_invocation_id as string;
    const edit = () =>
      startTurn({
        userId: f.userId,
        sessionId: f.sessionId,
        agent: demo,
        text: "set color to blue",
        messageId: "edit-1",
        rewindBefore: { invocationId, reason: "edit" },
      });
    const edited = await (await edit()).done;
    const retried = await (await edit()).done;
    expect(retried).toEqual(edited);
    const events = (await listEvents(f.userId, f.sessionId)).items;
    expect(events.filter((e) => e.actions?.rewind_before_invocation_id)).toHaveLength(1);
    expect((await getSession(f.userId, f.sessionId)).state).toEqual({ color: "blue" });

    process.env.RETRACE_MAX_CONCURRENT_TURNS = "1";
    const busy = await fixture();
    await busy.append(event("b1", { author: "user", text: "x" }));
    const other = await createSession(busy.userId);
    const turn = await holdTurn({ userId: busy.userId, sessionId: other.id });
    const log = async () => (await listEvents(busy.userId, busy.sessionId)).items;
    const before = await log();
    await expect(
      startTurn({
        userId: busy.userId,
        sessionId: busy.sessionId,
        agent: demo,
        text: "y",
        rewindBefore: { invocationId: "b1", reason: "edit" },
      }),
    ).rejects.toMatchObject({ code: "quota_exceeded" });
    expect(await log()).toEqual(before);
    await turn.stop();
  });

  it("a turn that lost its session stops without another write, and its late writes are refused", async () => {
    process.env.DEMO_WORD_DELAY_MS = "50";
    process.env.RETRACE_TURN_LEASE_MS = LEASE;
    const f = await fixture();
    const turn = await startTurn({ userId: f.userId, sessionId: f.sessionId, agent: demo, text: "hello" });
    const db = await getDb();
    await db.run(sql`UPDATE sessions SET turn_task_id = 'someone-else' WHERE id = ${f.sessionId}`);
    const final = await turn.done;
    expect(final.status.state).toBe("canceled");
    await expect(appendTurnEvents(f.userId, f.sessionId, turn.taskId, [event("late")])).rejects.toMatchObject({
      status: 409,
      code: "stale_turn",
    });
    expect((await listEvents(f.userId, f.sessionId)).items.map((e) => e.author)).toEqual(["user"]);
  });
});

describe("a turn's context", () => {
  it("is the effective history its turn began with, its own user event last, at most `limit` events, whatever the turn writes next", async () => {
    const f = await fixture();
    await f.append(
      event("i1", { author: "user", text: "one" }),
      event("i2", { author: "user", text: "two" }),
      event("i3", { author: "user", text: "three" }),
    );
    await rewindSession(f.userId, f.sessionId, "i2");
    const begun = await beginTurn(f.userId, f.sessionId, {
      task: completedTask(f.sessionId, "i4"),
      userEvent: event("i4", { author: "user", text: "i4" }),
      agent: "demo",
      owner: "test",
    });
    if ("existing" in begun) throw new Error("a new turn was expected");
    const history = await begun.history(400);
    expect(history).toEqual((await listEvents(f.userId, f.sessionId, "effective")).items);
    expect(texts(history)).toEqual(["one", "i4"]);
    expect(history.at(-1)?.id).toBe(begun.event.id);
    const db = await getDb();
    // The writer's history is the history at its user event's seq.
    const at = await db.one<{ seq: number }>(sql`SELECT last_seq AS seq FROM sessions WHERE id = ${f.sessionId}`);
    expect(await historyAt(f.userId, f.sessionId, Number(at?.seq), 400)).toEqual(history);
    await db.run(sql`UPDATE sessions SET turn_task_id = NULL WHERE id = ${f.sessionId}`);
    await f.append(event("i4", { author: "demo", text: "reply" }), event("i5", { author: "user", text: "later" }));
    await rewindSession(f.userId, f.sessionId, "i4");
    expect(await begun.history(400)).toEqual(history);
    expect(texts(await begun.history(1))).toEqual(["i4"]);
  });
});

describe("a turn's writes", () => {
  const activity = async (userId: string) =>
    Number((await (await getDb()).one<{ activity: number }>(sql`SELECT activity FROM users WHERE id = ${userId}`))?.activity);

  it("store a tool call with its response: three writes for a demo turn with a tool (begin, call and response, end)", async () => {
    process.env.DEMO_WORD_DELAY_MS = "0";
    const f = await fixture();
    const before = await activity(f.userId);
    // The user's clock is ahead of a stopped one: each write then counts one up from it.
    const clock = vi.spyOn(Date, "now").mockReturnValue(before - 60_000);
    try {
      await (await startTurn({ userId: f.userId, sessionId: f.sessionId, agent: demo, text: "set color to red" })).done;
    } finally {
      clock.mockRestore();
    }
    expect((await activity(f.userId)) - before).toBe(3);
    const events = (await listEvents(f.userId, f.sessionId)).items;
    expect(events.map((e) => Object.keys(e.content?.parts?.[0] ?? {})[0])).toEqual(["text", "function_call", "function_response", "text"]);
    expect(events.at(-1)).toMatchObject({ turn_complete: true });
    expect((await getSession(f.userId, f.sessionId)).state).toEqual({ color: "red" });
  });

  /** A turn begun by hand in `f`'s chat, as the runtime begins one: its task and its writer. */
  const begin = async (f: Fixture, invocationId: string) => {
    const task = completedTask(f.sessionId, invocationId);
    const begun = await beginTurn(f.userId, f.sessionId, {
      task,
      userEvent: event(invocationId, { author: "user", text: "hello" }),
      agent: "demo",
      owner: "test",
    });
    if ("existing" in begun) throw new Error("a new turn was expected");
    return { task, writer: begun };
  };

  it("computed from a cursor that no longer holds (the session moved since) are computed again from the row, never stored wrong", async () => {
    const f = await fixture();
    const { task, writer } = await begin(f, "t1");
    await writer.append([event("t1", { state: { a: 1 } })]);
    // Moved under the writer's cursor: the log, by a write of the turn's own that did not go through the writer.
    await appendTurnEvents(f.userId, f.sessionId, task.id, [event("t1", { state: { b: 2 } })]);
    await writer.append([event("t1", { state: { c: 3 } })]);
    // Moved under the writer's cursor by a rename alone (the log as it was).
    await renameSession(f.userId, f.sessionId, "Renamed");
    await writer.append([event("t1", { state: { d: 4 } })]);
    await writer.end(task, [event("t1", { text: "done" })]);
    expect(await getSession(f.userId, f.sessionId)).toMatchObject({
      name: "Renamed",
      state: { a: 1, b: 2, c: 3, d: 4 },
      running_task_id: null,
    });
    expect(texts((await listEvents(f.userId, f.sessionId)).items)).toEqual(["hello", undefined, undefined, undefined, undefined, "done"]);
    expect((await getTask(f.userId, task.id)).history).toHaveLength(6);
    expect(await checkInvariants(await getDb())).toEqual([]);
    // No write gets past a turn that no longer holds the session, through its writer or without.
    await expect(writer.append([event("t1")])).rejects.toMatchObject({ code: "stale_turn" });
    await expect(endTurn(f.userId, f.sessionId, task, [event("t1")])).rejects.toMatchObject({
      code: "stale_turn",
    });
  });

  it("end with a refused task report the task, whatever the events stored with it met, and change nothing", async () => {
    const f = await fixture();
    const { task, writer } = await begin(f, "t1");
    const before = await tableRows();
    const refused = { ...task, metadata: { kagent_invocation_id: "no-such-invocation" } };
    const message = /Task task-t1: invocation no-such-invocation has no events/;
    await expect(writer.end(refused, [event("t1", { artifacts: { "a.txt": 7 } })])).rejects.toThrow(message);
    await expect(endTurn(f.userId, f.sessionId, refused)).rejects.toThrow(message);
    expect(await tableRows()).toEqual(before);
  });

  it("renew the lease while the turn holds its session, and tell a cancel request and a takeover", async () => {
    const f = await fixture();
    const { task, writer } = await begin(f, "t1");
    expect(await writer.renew()).toEqual({ held: true, cancel: false });
    expect(await requestCancel(f.sessionId, task.id)).toBe(true);
    expect(await renewTurn(f.sessionId, task.id)).toEqual({ held: true, cancel: true });
    const db = await getDb();
    await db.run(sql`UPDATE sessions SET turn_task_id = ${"another"} WHERE id = ${f.sessionId}`);
    expect(await writer.renew()).toEqual({ held: false, cancel: false });
  });

  it("in a fork go on when the fork's source is deleted under the turn (its rows kept for the fork)", async () => {
    const f = await fixture();
    await f.append(event("i1", { author: "user", text: "first" }), event("i1", { text: "reply", state: { n: 1 } }));
    const fork = await forkSession(f.userId, f.sessionId);
    const inFork = { ...f, sessionId: fork.id };
    const { task, writer } = await begin(inFork, "t1");
    await deleteSession(f.userId, f.sessionId);
    await writer.append([event("t1", { state: { color: "blue" } })]);
    await writer.end(task, [event("t1", { text: "done" })]);
    expect((await getSession(f.userId, fork.id)).state).toEqual({ n: 1, color: "blue" });
    expect(texts((await listEvents(f.userId, fork.id)).items)).toEqual(["first", "reply", "hello", undefined, "done"]);
    expect(await checkInvariants(await getDb())).toEqual([]);
  });

  it("start only in a chat of the agent addressed, and change nothing otherwise", async () => {
    const f = await fixture({}, "assistant");
    const before = await tableRows();
    await expect(startTurn({ userId: f.userId, sessionId: f.sessionId, agent: demo, text: "hi" })).rejects.toMatchObject({
      status: 400,
      message: `Session ${f.sessionId} belongs to agent assistant`,
    });
    expect(await tableRows()).toEqual(before);
  });

  it("start a new chat in the turn's own transaction: a turn refused leaves no chat behind", async () => {
    process.env.RETRACE_MAX_CONCURRENT_TURNS = "1";
    const f = await fixture();
    const running = await holdTurn(f);
    const chats = async () => (await listSessions(f.userId)).items.length;
    const before = await chats();
    await expect(startTurn({ userId: f.userId, agent: demo, text: "in a new chat" })).rejects.toMatchObject({ code: "quota_exceeded" });
    expect(await chats()).toBe(before);
    await running.stop();
    const started = await startTurn({ userId: f.userId, agent: demo, text: "in a new chat" });
    const task = await started.done;
    expect(await getSession(f.userId, task.contextId)).toMatchObject({ name: "in a new chat", agent: "demo" });
  });
});

describe("turns across app instances", () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  async function remoteTurn(wordDelay = "150") {
    process.env.RETRACE_TURN_LEASE_MS = LEASE;
    const db = await sharedDatabase();
    cleanup = db.cleanup;
    const runner = startProcess("turn-runner.ts", { ...db.env, RETRACE_TURN_LEASE_MS: LEASE, DEMO_WORD_DELAY_MS: wordDelay }, [
      db.userId,
      db.sessionId,
    ]);
    const taskId = (await runner.waitFor("started ")).slice(8);
    return { ...db, runner, taskId };
  }

  it("an instance killed mid-turn frees its chat once the lease expires; the turn ends interrupted", async () => {
    const remote = await remoteTurn();
    await new Promise((r) => setTimeout(r, 300));
    remote.runner.child.kill("SIGKILL");
    await remote.runner.exited;
    const killedAt = Date.now();
    expect((await getSession(remote.userId, remote.sessionId)).running_task_id).toBe(remote.taskId);
    await expect(appendEvents(remote.userId, remote.sessionId, [event("x")])).rejects.toMatchObject({ code: "session_busy" });
    while ((await getSession(remote.userId, remote.sessionId)).running_task_id) await new Promise((r) => setTimeout(r, 100));
    const freedAfter = Date.now() - killedAt;
    expect(freedAfter).toBeLessThan(Number(LEASE) + 1000);
    expect(await reapAbandonedTurns()).toEqual([remote.taskId]);
    const task = await getTask(remote.userId, remote.taskId);
    expect(task.status.state).toBe("canceled");
    expect(task.history?.at(-1)?.metadata?.kagent_error).toMatch(/Interrupted/);
    process.env.DEMO_WORD_DELAY_MS = "0";
    const next = await (await startTurn({ userId: remote.userId, sessionId: remote.sessionId, agent: demo, text: "recap" })).done;
    expect(next.status.state).toBe("completed");
    console.log(`killed mid-turn: the chat was free again ${freedAfter} ms later (lease ${LEASE} ms)`);
  });

  it("cancel from another instance stops the turn within a second, keeping what streamed", async () => {
    const remote = await remoteTurn();
    await new Promise((r) => setTimeout(r, 500));
    const asked = Date.now();
    const final = (await cancelTurn(remote.userId, remote.taskId)) as Task;
    expect(Date.now() - asked).toBeLessThan(1000);
    expect(final.status.state).toBe("canceled");
    expect(final.history?.at(-1)?.metadata?.kagent_interrupted).toBe(true);
    expect(await remote.runner.waitFor("ended ")).toBe("ended canceled");
  });

  if (process.env.TEST_DIALECT === "postgres") {
    it("a watcher on another instance streams the rest of the turn", async () => {
      const remote = await remoteTurn("40");
      await new Promise((r) => setTimeout(r, 200));
      const updates = await watchTurn(remote.userId, remote.taskId);
      const seen: TurnUpdate[] = [];
      for await (const update of updates ?? []) seen.push(update);
      expect(seen[0]).toMatchObject({ kind: "task" });
      const done = seen.at(-1) as Extract<TurnUpdate, { kind: "done" }>;
      expect(done).toMatchObject({ kind: "done", task: { status: { state: "completed" } } });
      const streamed = seen.flatMap((u) => (u.kind === "partial" ? [messageText(u.message)] : [])).join("");
      expect(streamed).toBe(messageText(done.task.history?.at(-1) as never));
    });

    it(`300 watchers of a turn on another instance cost the store what one does; another user waits under ${STALL_LIMIT_MS} ms`, async () => {
      const remote = await remoteTurn("40");
      await new Promise((r) => setTimeout(r, 200));
      const watchers = 300;
      const { result, count } = await countTransactions(() =>
        withProbe(() =>
          Promise.all(
            Array.from({ length: watchers }, async () => {
              const seen: TurnUpdate[] = [];
              for await (const update of (await watchTurn(remote.userId, remote.taskId)) ?? []) seen.push(update);
              return seen;
            }),
          ),
        ),
      );
      for (const seen of result.result) {
        const done = seen.at(-1) as Extract<TurnUpdate, { kind: "done" }>;
        expect(done).toMatchObject({ kind: "done", task: { status: { state: "completed" } } });
      }
      // One read of the task and where it runs, then one per change and per 2 s poll, for all of them (the
      // probe's user, chat and reads are counted too).
      const transactions = count - result.probes - 2;
      expect(transactions).toBeLessThan(30);
      expect(result.worstMs).toBeLessThan(STALL_LIMIT_MS);
      console.log(
        `300 watchers on another instance: ${transactions} transactions in ${Math.round(result.ms)} ms, another user's worst ${Math.round(result.worstMs)} ms`,
      );
    });
  }
});
