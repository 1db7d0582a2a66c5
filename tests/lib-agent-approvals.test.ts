import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideTurn } from "@/lib/agent/decisions";
import { demoAgent } from "@/lib/agent/demo-agent";
import { closeConnections } from "@/lib/agent/mcp/connections";
import { startTurn, type Turn } from "@/lib/agent/runtime";
import type { Agent } from "@/lib/agent/types";
import { archiveText } from "@/lib/archive/writer";
import type { McpServerConfig } from "@/lib/config";
import { chatRecords } from "@/lib/db/archive-export";
import { getDb } from "@/lib/db/connection";
import { importUpload } from "@/lib/db/import-upload";
import {
  deleteSession,
  forkSession,
  getSession,
  getTask,
  listEvents,
  listTasks,
  listTodos,
  rewindSession,
  runningTurnOf,
  switchSession,
} from "@/lib/db/queries";
import { continueShared } from "@/lib/db/share-fork";
import { createShare } from "@/lib/db/shares";
import { checkInvariants } from "@/lib/db/tx/invariants";
import { tokenDay } from "@/lib/db/tx/tokens";
import { ALWAYS_ALLOW_KEY, type Decision } from "@/lib/session/tools";
import type { Task } from "@/lib/task/types";
import { fixture } from "./helpers";
import { caller, type HttpToolServer, httpConfig, httpToolServer } from "./support/mcp-servers";

let http: HttpToolServer;
let server: McpServerConfig;
beforeAll(async () => {
  http = await httpToolServer();
  server = httpConfig(http, { approval: "ask", tools: { peek: "always" } });
});
afterAll(async () => {
  await closeConnections([server]);
  await http.close();
});

type F = { userId: string; sessionId: string };
const send = async (f: F, agent: Agent, text = "go") => (await startTurn({ ...f, agent, text })).done;
const decide = async (f: F, agent: Agent, taskId: string, decision: Decision): Promise<Task> => {
  const decided = await decideTurn({ userId: f.userId, agent, taskId, decision });
  return "task" in decided ? decided.task : (decided as Turn).done;
};
const record = (note: string) => caller([server], [{ name: "world__record", args: { note } }]);

describe("approvals", () => {
  it("an ask call pauses the turn: stored with ADK's confirmation call, task input-required, the chat free, nothing sent", async () => {
    const f = await fixture();
    const before = http.calls.length;
    const task = await send(f, record("paused"));
    expect(task.status.state).toBe("input-required");
    expect(http.calls.length).toBe(before);
    expect(await runningTurnOf(f.userId, task.id)).toBeNull();
    const [, call, confirmation] = (await listEvents(f.userId, f.sessionId, "all")).items;
    const original = call.content?.parts?.[0].function_call;
    expect(original).toMatchObject({ name: "world__record", args: { note: "paused" } });
    const asked = confirmation.content?.parts?.[0].function_call;
    expect(asked).toMatchObject({
      name: "adk_request_confirmation",
      args: { originalFunctionCall: original, toolConfirmation: { hint: "Approve world__record?", confirmed: false } },
    });
    expect(confirmation.long_running_tool_ids).toEqual([asked?.id]);
    const stored = await getTask(f.userId, task.id);
    expect(stored.status.state).toBe("input-required");
    expect(stored.status.message?.parts).toEqual([
      { kind: "data", data: asked, metadata: { kagent_type: "function_call", kagent_is_long_running: true } },
    ]);
  });

  it("approve runs the call once and continues the turn; a repeated decision answers the task as it is", async () => {
    const f = await fixture();
    const agent = record("approved");
    const paused = await send(f, agent);
    const done = await decide(f, agent, paused.id, { decision_type: "approve" });
    expect(done.status.state).toBe("completed");
    expect(http.calls.filter((n) => n === "approved")).toHaveLength(1);
    expect(agent.answered).toEqual([[{ result: "recorded approved" }]]);
    const events = (await listEvents(f.userId, f.sessionId, "all")).items;
    expect(events.map((e) => e.author)).toEqual(["user", "demo", "demo", "user", "demo", "demo"]);
    expect(events[3].content?.parts?.[0].function_response).toMatchObject({
      name: "adk_request_confirmation",
      response: { confirmed: true },
    });
    expect(events[4].custom_metadata).toMatchObject({ retrace_tool: { executed: true } });
    const again = await decide(f, agent, paused.id, { decision_type: "approve" });
    expect(again.status.state).toBe("completed");
    expect(http.calls.filter((n) => n === "approved")).toHaveLength(1);
    expect((await listEvents(f.userId, f.sessionId, "all")).items).toHaveLength(6);
  });

  it("past the day's token budget a decision is refused (429) like a new turn: the call never runs", async () => {
    const f = await fixture();
    const agent = record("over budget");
    const paused = await send(f, agent);
    process.env.RETRACE_MAX_TOKENS_PER_DAY = "1";
    try {
      await (await getDb()).run(sql`UPDATE users SET tokens_day = ${tokenDay()}, tokens_used = 1 WHERE id = ${f.userId}`);
      await expect(decide(f, agent, paused.id, { decision_type: "approve" })).rejects.toMatchObject({ code: "quota_exceeded" });
      expect(http.calls).not.toContain("over budget");
      expect((await getTask(f.userId, paused.id)).status.state).toBe("input-required");
    } finally {
      delete process.env.RETRACE_MAX_TOKENS_PER_DAY;
    }
  });

  it("reject never reaches the server; the agent is told the reason", async () => {
    const f = await fixture();
    const agent = record("denied");
    const paused = await send(f, agent);
    await decide(f, agent, paused.id, { decision_type: "reject", rejection_reason: "not today" });
    expect(http.calls).not.toContain("denied");
    expect(agent.answered).toEqual([[{ error: "The user denied this call: not today", denied: true }]]);
  });

  it("50 concurrent approvals of one call execute it exactly once", async () => {
    const f = await fixture();
    const agent = record("once");
    const paused = await send(f, agent);
    const settled = await Promise.allSettled(Array.from({ length: 50 }, () => decide(f, agent, paused.id, { decision_type: "approve" })));
    expect(settled.filter((s) => s.status === "rejected")).toEqual([]);
    await expect.poll(async () => (await getTask(f.userId, paused.id)).status.state).toBe("completed");
    expect(http.calls.filter((n) => n === "once")).toHaveLength(1);
  });

  it("a batch decides each call by its id, and must name every waiting call", async () => {
    const f = await fixture();
    const agent = caller(
      [server],
      [
        { name: "world__record", args: { note: "batch-yes" } },
        { name: "world__peek", args: {} },
        { name: "world__record", args: { note: "batch-no" } },
      ],
    );
    const paused = await send(f, agent);
    const stored = await getTask(f.userId, paused.id);
    const ids = (stored.status.message?.parts ?? []).map((p) =>
      p.kind === "data" ? (p.data.args as { originalFunctionCall: { id: string } }).originalFunctionCall.id : "",
    );
    expect(ids).toHaveLength(2);
    await expect(decide(f, agent, paused.id, { decision_type: "batch", decisions: { [ids[0]]: "approve" } })).rejects.toThrow(/missing/);
    const done = await decide(f, agent, paused.id, {
      decision_type: "batch",
      decisions: { [ids[0]]: "approve", [ids[1]]: "reject" },
      rejection_reasons: { [ids[1]]: "no" },
    });
    expect(done.status.state).toBe("completed");
    expect(http.calls).toContain("batch-yes");
    expect(http.calls).not.toContain("batch-no");
    expect(agent.answered[0]).toEqual([{ result: "recorded batch-yes" }, { error: "The user denied this call: no", denied: true }]);
  });

  it("a new message waits for the decision; a rewind past the waiting call frees the chat, and the call never runs", async () => {
    const f = await fixture();
    const agent = record("rewound");
    const paused = await send(f, agent);
    await expect(startTurn({ ...f, agent, text: "something else" })).rejects.toMatchObject({ code: "approval_pending" });
    const userEvent = (await listEvents(f.userId, f.sessionId, "all")).items[0];
    const marker = await rewindSession(f.userId, f.sessionId, userEvent.invocation_id);
    const late = await decide(f, agent, paused.id, { decision_type: "approve" });
    expect(late.status.state).toBe("input-required");
    expect(http.calls).not.toContain("rewound");
    // Undo brings the waiting call back, and then it can be decided.
    await rewindSession(f.userId, f.sessionId, marker.event.invocation_id);
    expect((await decide(f, agent, paused.id, { decision_type: "approve" })).status.state).toBe("completed");
    expect(http.calls.filter((n) => n === "rewound")).toHaveLength(1);
  });

  it("always allow in this chat: recorded in the chat's state by the decision, later calls run without asking, a rewind before it forgets it", async () => {
    const f = await fixture();
    const first = record("first");
    const paused = await send(f, first);
    await decide(f, first, paused.id, { decision_type: "approve", always_allow: true });
    expect((await getSession(f.userId, f.sessionId)).state[ALWAYS_ALLOW_KEY]).toEqual(["world__record"]);
    const second = await send(f, record("second"));
    expect(second.status.state).toBe("completed");
    const userEvent = (await listEvents(f.userId, f.sessionId, "all")).items[0];
    await rewindSession(f.userId, f.sessionId, userEvent.invocation_id);
    expect((await send(f, record("third"))).status.state).toBe("input-required");
  });

  it("rewind, undo, switch and fork of a chat with executed external calls send nothing to the server", async () => {
    const f = await fixture();
    const agent = record("effect");
    const paused = await send(f, agent);
    await decide(f, agent, paused.id, { decision_type: "approve" });
    await send(f, caller([server], [{ name: "world__peek", args: {} }]));
    const count = http.calls.length;
    const [first, , second] = (await listTasks(f.userId, f.sessionId)).items;
    expect(first.metadata?.retrace_external_calls).toBe(1);
    const invocation = (t: Task | undefined) => t?.metadata?.kagent_invocation_id as string;
    const marker = await rewindSession(f.userId, f.sessionId, invocation(first));
    await rewindSession(f.userId, f.sessionId, marker.event.invocation_id);
    await switchSession(f.userId, f.sessionId, invocation(first));
    await forkSession(f.userId, f.sessionId, { invocationId: invocation(second) });
    await forkSession(f.userId, f.sessionId, {});
    expect(http.calls.length).toBe(count);
  });

  it("an import or a shared chat's Continue never carries a waiting call: it is canceled there, and no decision runs it", async () => {
    const f = await fixture();
    const agent = record("copied");
    await send(f, agent);
    let text = "";
    async function* chats() {
      yield chatRecords(f.userId, f.sessionId);
    }
    for await (const piece of archiveText(chats())) text += piece;
    const [imported] = await importUpload(
      f.userId,
      (async function* () {
        yield Buffer.from(text);
      })(),
      { agent: "demo", agents: ["demo"] },
    );
    const { token } = await createShare(f.userId, f.sessionId, { includeTools: true, includeFiles: false });
    const continued = await continueShared(token, f.userId);
    for (const copy of [imported.id, continued.id]) {
      const [task] = (await listTasks(f.userId, copy)).items;
      expect(task.status.state).toBe("canceled");
      expect((await decide({ ...f, sessionId: copy }, agent, task.id, { decision_type: "approve" })).status.state).toBe("canceled");
    }
    expect(http.calls).not.toContain("copied");
  });

  it("the demo's todo list: add waits for approval, then acts outside the chat, so a rewind leaves it", async () => {
    const f = await fixture();
    process.env.DEMO_WORD_DELAY_MS = "0";
    const paused = await send(f, demoAgent, "add todo buy milk");
    expect(paused.status.state).toBe("input-required");
    expect(await listTodos(f.userId)).toEqual([]);
    const done = await decide(f, demoAgent, paused.id, { decision_type: "approve" });
    expect(done.history?.at(-1)?.parts[0]).toMatchObject({ kind: "text", text: expect.stringContaining("Added **buy milk**") });
    expect((await listTodos(f.userId)).map((t) => t.text)).toEqual(["buy milk"]);
    await rewindSession(f.userId, f.sessionId, paused.metadata?.kagent_invocation_id as string);
    const listed = await send(f, demoAgent, "list todos");
    expect(listed.status.state).toBe("completed");
    expect(listed.history?.at(-1)?.parts[0]).toMatchObject({ text: expect.stringContaining("1. buy milk") });
    const denied = await send(f, demoAgent, "remove todo 1");
    const kept = await decide(f, demoAgent, denied.id, { decision_type: "reject" });
    expect(kept.history?.at(-1)?.parts[0]).toMatchObject({ text: expect.stringContaining("I did not remove todo 1: you denied it") });
    expect(await listTodos(f.userId)).toHaveLength(1);
  });
});

describe("a fork or Duplicate of a chat whose call waits", () => {
  const invocationOf = (t: Task) => t.metadata?.kagent_invocation_id as string;
  /** The state of the task of `invocationId` in the chat, rewound or not. */
  const stateIn = async (userId: string, sessionId: string, invocationId: string) =>
    (await listTasks(userId, sessionId, { includeRewound: true })).items.find((t) => invocationOf(t) === invocationId)?.status.state;

  it("Duplicate: the original still decides the call, which runs once; the copy has it canceled, and no decision there runs it", async () => {
    const f = await fixture();
    const agent = record("duplicated");
    const paused = await send(f, agent);
    const before = await forkSession(f.userId, f.sessionId, { invocationId: invocationOf(paused) });
    const copy = await forkSession(f.userId, f.sessionId, {});
    const [copied] = (await listTasks(f.userId, copy.id)).items;
    expect(copied.status).toEqual({ state: "canceled", timestamp: paused.status.timestamp });
    expect((await decide({ ...f, sessionId: copy.id }, agent, copied.id, { decision_type: "approve" })).status.state).toBe("canceled");
    expect(http.calls).not.toContain("duplicated");
    expect(await checkInvariants(await getDb(), [f.sessionId, before.id, copy.id])).toEqual([]);

    expect((await decide(f, agent, paused.id, { decision_type: "approve" })).status.state).toBe("completed");
    expect(http.calls.filter((n) => n === "duplicated")).toHaveLength(1);
    // The copy takes new messages; a copy of it, and the copy once its source is deleted, show the call as before.
    expect((await send({ ...f, sessionId: copy.id }, caller([server], [{ name: "world__peek", args: {} }]))).status.state).toBe(
      "completed",
    );
    const second = await forkSession(f.userId, copy.id, {});
    await deleteSession(f.userId, f.sessionId);
    for (const id of [copy.id, second.id]) expect(await stateIn(f.userId, id, invocationOf(paused))).toBe("canceled");
    expect(await checkInvariants(await getDb(), [f.sessionId, copy.id, second.id])).toEqual([]);
    expect(http.calls.filter((n) => n === "duplicated")).toHaveLength(1);
  });

  it("a fork after the waiting turn, or one made while a rewind hid it, leaves it decidable in the source (after an Undo there)", async () => {
    const f = await fixture();
    const agent = record("hidden");
    const paused = await send(f, agent);
    const { event: marker } = await rewindSession(f.userId, f.sessionId, invocationOf(paused));
    const later = await send(f, caller([server], [{ name: "world__peek", args: {} }]));
    const copy = await forkSession(f.userId, f.sessionId, {});
    // Undo: the waiting turn is the chat's last again.
    await rewindSession(f.userId, f.sessionId, marker.invocation_id);
    const after = await forkSession(f.userId, f.sessionId, { invocationId: invocationOf(later) });
    for (const fork of [copy, after]) {
      expect(await stateIn(f.userId, fork.id, invocationOf(paused))).toBe("canceled");
      // An Undo in the fork shows the call again, canceled: no decision runs it there.
      await rewindSession(f.userId, fork.id, marker.invocation_id);
      const [shown] = (await listTasks(f.userId, fork.id)).items;
      expect(invocationOf(shown)).toBe(invocationOf(paused));
      expect((await decide({ ...f, sessionId: fork.id }, agent, shown.id, { decision_type: "approve" })).status.state).toBe("canceled");
    }
    expect(await checkInvariants(await getDb(), [f.sessionId, copy.id, after.id])).toEqual([]);
    expect((await decide(f, agent, paused.id, { decision_type: "approve" })).status.state).toBe("completed");
    expect(http.calls.filter((n) => n === "hidden")).toHaveLength(1);
    expect(await checkInvariants(await getDb(), [f.sessionId, copy.id, after.id])).toEqual([]);
  });
});
