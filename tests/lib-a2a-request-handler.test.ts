import type { Task, TaskStatusUpdateEvent } from "@a2a-js/sdk";
import { JsonRpcTransportHandler } from "@a2a-js/sdk/server";
import { beforeEach, describe, expect, it } from "vitest";
import { messageText } from "@/lib/a2a/convert";
import { RetraceRequestHandler } from "@/lib/a2a/request-handler";
import { getAgent } from "@/lib/agent/registry";
import { createSession, createUser, getSession, getTask, listTasks } from "@/lib/db/queries";

type Rpc = { jsonrpc: "2.0"; id: number | string | null; result?: unknown; error?: { code: number; message: string; data?: unknown } };

let userId: string;
beforeEach(async () => {
  process.env.DEMO_WORD_DELAY_MS = "0";
  userId = await createUser();
});

const transport = (user = userId) =>
  new JsonRpcTransportHandler(new RetraceRequestHandler(getAgent("demo"), user, "http://x/api/a2a/demo"));

async function call(method: string, params: unknown, user?: string): Promise<Rpc> {
  const result = await transport(user).handle(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }));
  if (Symbol.asyncIterator in Object(result)) throw new Error("expected a single response");
  return result as Rpc;
}

async function stream(params: unknown): Promise<Rpc[]> {
  const result = await transport().handle(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/stream", params }));
  const out: Rpc[] = [];
  for await (const item of result as AsyncGenerator<Rpc>) out.push(item);
  return out;
}

const message = (text: string, contextId?: string, rewindTo?: string) => ({
  message: {
    kind: "message",
    role: "user",
    messageId: crypto.randomUUID(),
    parts: text ? [{ kind: "text", text }] : [],
    ...(contextId ? { contextId } : {}),
    ...(rewindTo ? { metadata: { kagent_rewind_before_invocation_id: rewindTo } } : {}),
  },
});

const send = async (text: string, contextId?: string, rewindTo?: string) =>
  (await call("message/send", message(text, contextId, rewindTo))).result as Task;

describe("A2A JSON-RPC handler", () => {
  it("message/send without contextId creates a session named after the text", async () => {
    const task = await send("save file notes.txt with content a fairly long text to name the chat");
    const session = await getSession(userId, task.contextId);
    expect(session.agent).toBe("demo");
    expect(session.name).toBe("save file notes.txt with content a fairl…");
    expect(task.status.state).toBe("completed");
    expect(task.history!.map((m) => m.role)).toEqual(["user", "agent", "agent", "agent"]);
    expect(await getTask(userId, task.id)).toEqual(task);
  });

  it("message/stream yields the task, working updates (partial and stored), then one final update", async () => {
    const { contextId } = await send("hello");
    const items = await stream(message("set color to red", contextId));
    const results = items.map((i) => i.result as Task | TaskStatusUpdateEvent);
    expect(results[0]).toMatchObject({ kind: "task", status: { state: "submitted" } });
    const task = results[0] as Task;
    const updates = results.slice(1) as TaskStatusUpdateEvent[];
    expect(updates.slice(0, -1).every((u) => u.status.state === "working" && !u.final)).toBe(true);
    expect(updates.at(-1)).toMatchObject({ kind: "status-update", final: true, status: { state: "completed" }, taskId: task.id });

    const stored = updates.filter((u) => !u.status.message?.metadata?.adk_partial && u.status.message).map((u) => u.status.message);
    const partial = updates.filter((u) => u.status.message?.metadata?.adk_partial).map((u) => messageText(u.status.message!));
    expect(stored).toEqual((await getTask(userId, task.id)).history?.slice(1));
    expect(partial.join("")).toBe(messageText(stored.at(-1)!));
    expect(partial.length).toBeGreaterThan(1);
  });

  it("a rewind control message without text answers one task holding the effective history", async () => {
    const first = await send("set color to red");
    const second = await send("set color to blue", first.contextId);
    const items = await stream(message("", first.contextId, second.metadata!.kagent_invocation_id as string));
    expect(items).toHaveLength(1);
    const task = items[0].result as Task;
    expect(task).toMatchObject({ kind: "task", contextId: first.contextId, status: { state: "completed" } });
    expect(task.history).toEqual(first.history);
    expect((await getSession(userId, first.contextId)).state).toEqual({ color: "red" });

    const undo = await send("", first.contextId, task.metadata!.kagent_invocation_id as string);
    expect(undo.history).toEqual([...first.history!, ...second.history!]);
  });

  it("a rewind control message with text rewinds, then runs the text", async () => {
    const first = await send("first");
    const second = await send("second", first.contextId);
    const task = await send("recap", first.contextId, second.metadata!.kagent_invocation_id as string);
    expect(messageText(task.history!.at(-1)!)).toBe("Here is what you said so far:\n\n1. first");
    expect((await listTasks(userId, first.contextId)).items.map((t) => t.id)).toEqual([first.id, task.id]);
  });

  it("answers JSON-RPC errors, never throws, and writes nothing on bad input", async () => {
    const { contextId } = await send("hi");
    const other = await createUser();
    const unknownInvocation = await call("message/send", message("", contextId, "e-missing"));
    expect(unknownInvocation.error).toMatchObject({
      code: -32602,
      message: "Invocation ID not found: e-missing",
      data: { code: "invocation_not_found" },
    });
    expect((await call("message/send", message("hi", contextId), other)).error).toMatchObject({
      code: -32602,
      data: { code: "not_found" },
    });
    expect((await call("tasks/get", { id: (await listTasks(userId, contextId)).items[0].id }, other)).error?.code).toBe(-32001);
    expect((await call("message/send", { message: { role: "user", parts: "x" } })).error?.code).toBe(-32602);
    expect((await call("message/send", { message: { role: "agent", parts: [] } })).error?.code).toBe(-32602);
    expect((await call("message/send", message(""))).error?.code).toBe(-32602);
    expect((await call("tasks/get", { id: 5 })).error?.code).toBe(-32602);
    expect((await call("tasks/cancel", { id: (await listTasks(userId, contextId)).items[0].id })).error?.code).toBe(-32002);
    expect((await call("nope", {})).error?.code).toBe(-32601);
    expect(((await transport().handle("{bad")) as Rpc).error?.code).toBe(-32700);
    expect((await listTasks(userId, contextId)).items).toHaveLength(1);
  });

  it("refuses a session of another agent", async () => {
    const session = await createSession(userId, { agent: "someone-else" });
    expect((await call("message/send", message("hi", session.id))).error?.message).toMatch(/belongs to agent someone-else/);
  });

  it("tasks/get honours historyLength", async () => {
    const task = await send("set color to red");
    const got = (await call("tasks/get", { id: task.id, historyLength: 1 })).result as Task;
    expect(got.history).toEqual(task.history!.slice(-1));
  });
});
