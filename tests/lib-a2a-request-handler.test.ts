import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { streamTurn } from "@/lib/a2a/turns";
import { createSession, getSession, getTask, listTasks } from "@/lib/db/queries";
import { messageText } from "@/lib/task/convert";
import type { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from "@/lib/task/types";
import { legacyMessage as message, type Rpc, rpc } from "./support/a2a";
import { call, newGuest, routes, snapshot } from "./support/api";

/** Protocol v0.3 JSON-RPC, as kagent and other older peers call it (no A2A-Version header). */
let user: { user_id: string; token: string };
beforeEach(async () => {
  process.env.DEMO_WORD_DELAY_MS = "0";
  user = await newGuest();
});
afterEach(() => {
  delete process.env.DEMO_WORD_DELAY_MS;
});

const send = async (text: string, contextId?: string, metadata?: Record<string, unknown>) =>
  (await rpc(user.token, "message/send", { message: message(text, contextId, metadata) })).json.result as Task;
const rewindTo = (invocationId: unknown) => ({ kagent_rewind_before_invocation_id: invocationId });

describe("A2A v0.3 JSON-RPC", () => {
  it("message/send without contextId creates a session named after the text", async () => {
    const task = await send("save file notes.txt with content a fairly long text to name the chat");
    const session = await getSession(user.user_id, task.contextId);
    expect(session.agent).toBe("demo");
    expect(session.name).toBe("save file notes.txt with content a fairl…");
    expect(task).toMatchObject({ kind: "task", status: { state: "completed" } });
    expect(task.history!.map((m) => m.role)).toEqual(["user", "agent", "agent", "agent"]);
    expect(task).toEqual(await getTask(user.user_id, task.id));
    const [, call, result] = task.history!;
    expect(call.parts[0]).toMatchObject({ kind: "data", data: { name: "save_artifact" }, metadata: { kagent_type: "function_call" } });
    expect(result.metadata).toMatchObject({
      kagent_invocation_id: task.metadata!.kagent_invocation_id,
      kagent_artifact_delta: { "notes.txt": 0 },
    });
  });

  it("message/stream yields the task, working updates (partial and stored), the closing artifact, then one final update", async () => {
    const { contextId } = await send("hello");
    const { frames, streamed } = await rpc(user.token, "message/stream", { message: message("set color to red", contextId) });
    expect(streamed).toBe(true);
    const results = frames.map((f) => f.result as Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent);
    expect(results[0]).toMatchObject({ kind: "task", status: { state: "submitted" } });
    const task = results[0] as Task;
    const updates = results.slice(1, -2) as TaskStatusUpdateEvent[];
    const [closing, final] = results.slice(-2);
    expect(updates.every((u) => u.kind === "status-update" && u.status.state === "working" && !u.final)).toBe(true);
    expect(final).toMatchObject({ kind: "status-update", final: true, status: { state: "completed" }, taskId: task.id });

    const stored = updates.filter((u) => !u.status.message?.metadata?.adk_partial && u.status.message).map((u) => u.status.message!);
    const partial = updates.filter((u) => u.status.message?.metadata?.adk_partial).map((u) => messageText(u.status.message!));
    expect(stored).toEqual((await getTask(user.user_id, task.id)).history!.slice(1));
    expect(partial.join("")).toBe(messageText(stored.at(-1)!));
    expect(partial.length).toBeGreaterThan(1);
    // What kagent's agent runtime closes a turn with, and kagent's UI keeps: the reply's text, whole.
    expect(closing).toEqual({
      kind: "artifact-update",
      taskId: task.id,
      contextId,
      artifact: { artifactId: stored.at(-1)!.messageId, parts: [{ kind: "text", text: "Done — **color** is now `red`." }] },
      append: false,
      lastChunk: true,
      metadata: (final as TaskStatusUpdateEvent).metadata,
    });
    // Both carry the final task's metadata: the turn's usage is known only at its end.
    expect((final as TaskStatusUpdateEvent).metadata).toEqual({ ...task.metadata, kagent_usage_metadata: expect.any(Object) });
  });

  it("a turn closes with the artifact only when it ends on the agent's reply; a failure's note is in its final update", async () => {
    const user: Message = { kind: "message", messageId: "u", role: "user", parts: [{ kind: "text", text: "hi" }] };
    const reply: Message = { kind: "message", messageId: "r", role: "agent", parts: [{ kind: "text", text: "Interrupted rep" }] };
    const task: Task = { kind: "task", id: "t", contextId: "c", status: { state: "working" }, history: [user] };
    const kinds = async (final: Task) => {
      async function* updates() {
        yield { kind: "task" as const, task };
        yield { kind: "done" as const, task: final };
      }
      const seen = [];
      for await (const event of streamTurn(updates())) seen.push(event.kind);
      return seen;
    };
    const note: Message = { ...reply, parts: [{ kind: "text", text: "model endpoint unreachable" }] };
    expect(await kinds({ ...task, status: { state: "canceled" }, history: [user, reply] })).toEqual([
      "task",
      "artifact-update",
      "status-update",
    ]);
    expect(await kinds({ ...task, status: { state: "failed", message: note }, history: [user, note] })).toEqual(["task", "status-update"]);
    expect(await kinds({ ...task, status: { state: "canceled" } })).toEqual(["task", "status-update"]);
  });

  it("a rewind control message without text answers one stored task holding the effective history", async () => {
    const first = await send("set color to red");
    const second = await send("set color to blue", first.contextId);
    const { frames } = await rpc(user.token, "message/stream", {
      message: message("", first.contextId, rewindTo(second.metadata!.kagent_invocation_id)),
    });
    expect(frames).toHaveLength(1);
    const task = frames[0].result as Task;
    expect(task).toMatchObject({ kind: "task", contextId: first.contextId, status: { state: "completed" } });
    expect(task.history).toEqual(first.history);
    expect((await getSession(user.user_id, first.contextId)).state).toEqual({ color: "red" });
    expect((await rpc(user.token, "tasks/get", { id: task.id })).json.result).toEqual(task);
    expect((await listTasks(user.user_id, first.contextId)).items.map((t) => t.id)).toEqual([first.id]);

    const undo = await send("", first.contextId, rewindTo(task.metadata!.kagent_invocation_id));
    expect(undo.history).toEqual([...first.history!, ...second.history!]);
  });

  it("a rewind control message with text rewinds, then runs the text; the reason is recorded", async () => {
    const first = await send("first");
    const second = await send("second", first.contextId);
    const task = await send("recap", first.contextId, {
      ...rewindTo(second.metadata!.kagent_invocation_id),
      retrace_rewind_reason: "edit",
    });
    expect(messageText(task.history!.at(-1)!)).toBe("Here is what you said so far:\n\n1. first");
    expect((await listTasks(user.user_id, first.contextId)).items.map((t) => t.id)).toEqual([first.id, task.id]);
    const all = (await listTasks(user.user_id, first.contextId, { includeRewound: true })).items;
    expect(all.find((t) => t.id === second.id)?.metadata).toMatchObject({ rewound: true, rewound_reason: "edit" });
  });

  it("answers JSON-RPC errors, never throws, and writes nothing on bad input", async () => {
    const { contextId, id: taskId } = await send("hi");
    const other = await newGuest();
    const before = await snapshot();
    const error = async (method: string, params: unknown, token = user.token) => (await rpc(token, method, params)).json.error;
    expect(await error("message/send", { message: message("", contextId, rewindTo("e-missing")) })).toEqual({
      code: -32602,
      message: "Invocation ID not found: e-missing",
      data: { code: "invocation_not_found" },
    });
    expect(await error("message/send", { message: message("hi", contextId) }, other.token)).toMatchObject({
      code: -32602,
      data: { code: "not_found" },
    });
    expect((await error("tasks/get", { id: taskId }, other.token)).code).toBe(-32001);
    expect((await error("tasks/cancel", { id: taskId }, other.token)).code).toBe(-32001);
    expect((await error("message/send", { message: { ...message("x"), parts: "x" } })).code).toBe(-32602);
    expect((await error("message/send", { message: { ...message("x"), role: "agent" } })).code).toBe(-32602);
    expect((await error("message/send", { message: { ...message("x"), messageId: undefined } })).code).toBe(-32602);
    expect((await error("message/send", { message: message("") })).code).toBe(-32602);
    expect((await error("message/send", { message: message("x", undefined, { retrace_rewind_reason: "because" }) })).code).toBe(-32602);
    expect((await error("message/send", { message: message("", undefined, rewindTo(5)) })).code).toBe(-32602);
    expect((await error("tasks/get", { id: 5 })).code).toBe(-32602);
    expect((await error("tasks/get", { id: "nope" })).code).toBe(-32001);
    expect((await error("tasks/cancel", { id: taskId })).code).toBe(-32002);
    expect((await error("tasks/pushNotificationConfig/get", { id: taskId })).code).toBe(-32003);
    expect((await error("nope", {})).code).toBe(-32601);
    const raw = await call(routes.a2a.POST, { method: "POST", token: user.token, params: { agent: "demo" }, raw: "{bad" });
    expect(raw.json.error.code).toBe(-32700);
    expect(await snapshot()).toEqual(before);
  });

  it("refuses a session of another agent", async () => {
    const session = await createSession(user.user_id, { agent: "someone-else" });
    const { json } = await rpc(user.token, "message/send", { message: message("hi", session.id) });
    expect(json.error.message).toMatch(/belongs to agent someone-else/);
  });

  it("tasks/get honours historyLength", async () => {
    const task = await send("set color to red");
    const got = (await rpc(user.token, "tasks/get", { id: task.id, historyLength: 1 })).json.result as Task;
    expect(got.history).toEqual(task.history!.slice(-1));
    expect((await rpc(user.token, "tasks/get", { id: task.id, historyLength: 0 })).json.result.history).toBeUndefined();
  });

  it("tasks/resubscribe of a finished task streams it once and ends", async () => {
    const task = await send("hi");
    const { frames, streamed } = await rpc(user.token, "tasks/resubscribe", { id: task.id });
    expect(streamed).toBe(true);
    expect(frames.map((f: Rpc) => f.result)).toEqual([task]);
    const missing = await rpc(user.token, "tasks/resubscribe", { id: "nope" });
    expect(missing.streamed).toBe(true);
    expect(missing.frames).toMatchObject([{ event: "error", error: { code: -32001 } }]);
  });
});
