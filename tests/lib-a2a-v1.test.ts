import { beforeEach, describe, expect, it } from "vitest";
import { getTask, listTasks } from "@/lib/db/queries";
import { v1Message as message, rpc } from "./support/a2a";
import { call, newGuest, routes, snapshot } from "./support/api";

/** Protocol v1.0 JSON-RPC (proto-JSON shapes, `A2A-Version: 1.0`), and the public agent card. */
let user: { user_id: string; token: string };
beforeEach(async () => {
  process.env.DEMO_WORD_DELAY_MS = "0";
  user = await newGuest();
});

const v1 = (method: string, params: unknown, token = user.token) => rpc(token, method, params, { version: "1.0" });
const send = async (text: string, contextId?: string, metadata?: Record<string, unknown>) =>
  (await v1("SendMessage", { message: message(text, contextId, metadata) })).json.result.task;

describe("A2A v1.0 JSON-RPC", () => {
  it("SendMessage answers the task in proto-JSON: states, roles, text and data parts, kagent metadata", async () => {
    const task = await send("set color to red");
    const invocationId = (await getTask(user.user_id, task.id)).metadata!.kagent_invocation_id;
    expect(task).toMatchObject({ id: expect.any(String), contextId: expect.any(String), status: { state: "TASK_STATE_COMPLETED" } });
    expect(task.metadata).toMatchObject({ kagent_invocation_id: invocationId, kagent_agent: "demo" });
    expect(task.history.map((m: { role: string }) => m.role)).toEqual(["ROLE_USER", "ROLE_AGENT", "ROLE_AGENT", "ROLE_AGENT"]);
    expect(task.history[0]).toMatchObject({ parts: [{ text: "set color to red" }], metadata: { kagent_invocation_id: invocationId } });
    expect(task.history[1]).toMatchObject({
      parts: [{ data: { name: "update_state", args: { key: "color", value: "red" } }, metadata: { kagent_type: "function_call" } }],
      metadata: { kagent_author: "demo", kagent_invocation_id: invocationId },
    });
    expect(task.history[2].metadata).toMatchObject({ kagent_state_delta: { color: "red" } });
    expect((await v1("GetTask", { id: task.id })).json.result).toEqual(task);
  });

  it("SendStreamingMessage streams the task, status updates (partial text marked adk_partial), the closing artifact, then the final state", async () => {
    const { frames, streamed } = await v1("SendStreamingMessage", { message: message("hello there") });
    expect(streamed).toBe(true);
    const [first, ...rest] = frames.map((f) => f.result);
    const [closing, final] = rest.slice(-2);
    const updates = rest.slice(0, -2);
    expect(first.task).toMatchObject({ status: { state: "TASK_STATE_SUBMITTED" } });
    expect(updates.every((u) => u.statusUpdate?.taskId === first.task.id)).toBe(true);
    expect(final.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
    const partial = updates.filter((u) => u.statusUpdate.status.message?.metadata?.adk_partial);
    expect(partial.length).toBeGreaterThan(1);
    expect(updates.some((u) => "final" in u.statusUpdate)).toBe(false);
    const reply = updates.at(-1).statusUpdate.status.message;
    expect(closing.artifactUpdate).toEqual({
      taskId: first.task.id,
      contextId: first.task.contextId,
      artifact: { artifactId: reply.messageId, parts: reply.parts },
      lastChunk: true,
      metadata: first.task.metadata,
    });
  });

  it("the rewind control message works in v1.0 too, with and without text", async () => {
    const first = await send("set color to red");
    const second = await send("set color to blue", first.contextId);
    const rewindTo = { kagent_rewind_before_invocation_id: second.metadata.kagent_invocation_id };
    const { frames } = await v1("SendStreamingMessage", { message: message("", first.contextId, rewindTo) });
    expect(frames).toHaveLength(1);
    expect(frames[0].result.task.history).toEqual(first.history);
    expect((await v1("GetTask", { id: frames[0].result.task.id })).json.result).toEqual(frames[0].result.task);
    const again = await send("recap", first.contextId, {
      kagent_rewind_before_invocation_id: frames[0].result.task.metadata.kagent_invocation_id,
    });
    expect(again.history.at(-1).parts[0].text).toBe("Here is what you said so far:\n\n1. set color to red\n2. set color to blue");
  });

  it("ListTasks pages a session's effective tasks, newest first", async () => {
    const first = await send("one");
    for (const text of ["two", "three", "four"]) await send(text, first.contextId);
    const page = async (pageToken?: string) =>
      (await v1("ListTasks", { contextId: first.contextId, pageSize: 3, historyLength: 1, ...(pageToken ? { pageToken } : {}) })).json
        .result;
    const one = await page();
    expect(one.tasks.map((t: { history: { parts: { text: string }[] }[] }) => t.history.length)).toEqual([1, 1, 1]);
    expect(one).toMatchObject({ pageSize: 3, totalSize: 4, nextPageToken: expect.any(String) });
    const two = await page(one.nextPageToken);
    expect(two.nextPageToken).toBe("");
    const ids = [...one.tasks, ...two.tasks].map((t: { id: string }) => t.id);
    expect(ids).toEqual((await listTasks(user.user_id, first.contextId)).items.map((t) => t.id).reverse());
    expect((await v1("ListTasks", { contextId: first.contextId, status: "TASK_STATE_FAILED" })).json.result.tasks).toEqual([]);
  });

  it("errors carry A2A codes (with our machine code as ErrorInfo metadata) and change nothing", async () => {
    const task = await send("hi");
    const other = await newGuest();
    const before = await snapshot();
    const error = async (method: string, params: unknown, token?: string) => (await v1(method, params, token)).json.error;
    expect(
      await error("SendMessage", { message: message("", task.contextId, { kagent_rewind_before_invocation_id: "e-x" }) }),
    ).toMatchObject({
      code: -32602,
      message: "Invocation ID not found: e-x",
      data: [{ reason: "INVALID_PARAMS", metadata: { code: "invocation_not_found" } }],
    });
    expect((await error("GetTask", { id: task.id }, other.token)).code).toBe(-32001);
    expect((await error("CancelTask", { id: task.id }, other.token)).code).toBe(-32001);
    expect((await error("ListTasks", { contextId: task.contextId }, other.token)).data[0].metadata).toEqual({ code: "not_found" });
    expect((await error("CancelTask", { id: task.id })).code).toBe(-32002);
    expect((await error("ListTasks", {})).code).toBe(-32602);
    expect((await error("ListTasks", { contextId: task.contextId, pageSize: 101 })).code).toBe(-32602);
    expect((await error("ListTasks", { contextId: task.contextId, pageToken: "nope" })).code).toBe(-32602);
    expect((await error("SendMessage", { message: { ...message("x"), role: "ROLE_AGENT" } })).code).toBe(-32602);
    expect((await error("SendMessage", { message: { ...message("x"), messageId: "" } })).code).toBe(-32602);
    expect((await error("CreateTaskPushNotificationConfig", { taskId: task.id, url: "http://x" })).code).toBe(-32003);
    expect((await error("GetExtendedAgentCard", {})).code).toBe(-32004);
    expect((await rpc(user.token, "SendMessage", { message: message("x") }, { version: "2.0" })).json.error.code).toBe(-32009);
    expect(await snapshot()).toEqual(before);
  });

  it("a v1.0 method name is served as v1.0 without the header, and a v0.3 one as v0.3 with it", async () => {
    const plain = await rpc(user.token, "SendMessage", { message: message("hi") });
    expect(plain.json.result.task.status.state).toBe("TASK_STATE_COMPLETED");
    const legacy = await v1("tasks/get", { id: plain.json.result.task.id });
    expect(legacy.json.result).toMatchObject({ kind: "task", status: { state: "completed" } });
  });

  it("returnImmediately answers the task before the turn ends", async () => {
    process.env.DEMO_WORD_DELAY_MS = "20";
    const { json } = await v1("SendMessage", { message: message("hello there"), configuration: { returnImmediately: true } });
    expect(json.result.task.status.state).toBe("TASK_STATE_SUBMITTED");
    await expect.poll(async () => (await getTask(user.user_id, json.result.task.id)).status.state, { timeout: 10_000 }).toBe("completed");
  });
});

describe("the agent card (public, docs/api.md § A2A)", () => {
  const card = (headers: Record<string, string> = {}) =>
    call(routes.agentCard.GET, { path: "/api/a2a/demo/.well-known/agent-card.json", params: { agent: "demo" }, headers });

  it("v1.0: both JSON-RPC interfaces at the request's origin, and how to authenticate", async () => {
    const { status, json, headers } = await card({ "a2a-version": "1.0" });
    expect(status).toBe(200);
    expect(headers.get("vary")).toMatch(/a2a-version/i);
    expect(json.supportedInterfaces).toEqual([
      { url: "http://localhost/api/a2a/demo", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: "http://localhost/api/a2a/demo", protocolBinding: "JSONRPC", protocolVersion: "0.3" },
      // kagent's path to the same endpoint, under RETRACE_KAGENT_NAMESPACE.
      { url: "http://localhost/api/a2a/kagent/demo", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: "http://localhost/api/a2a/kagent/demo", protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    ]);
    expect(json).toMatchObject({ name: "demo", capabilities: { streaming: true } });
    expect(json.securitySchemes.guestToken.httpAuthSecurityScheme).toMatchObject({ scheme: "bearer", bearerFormat: "JWT" });
    expect(json.securitySchemes.guestToken.httpAuthSecurityScheme.description).toContain("http://localhost/api/auth/guest");
    expect(json.securityRequirements).toEqual([{ schemes: { guestToken: {} } }]);
  });

  it("v0.3 (no header): the v0.3 card with the v1.0 interfaces embedded", async () => {
    const { json } = await card();
    expect(json).toMatchObject({
      protocolVersion: "0.3",
      url: "http://localhost/api/a2a/demo",
      preferredTransport: "JSONRPC",
      securitySchemes: { guestToken: { type: "http", scheme: "bearer" } },
      security: [{ guestToken: [] }],
      additionalInterfaces: [{ url: "http://localhost/api/a2a/kagent/demo", transport: "JSONRPC" }],
    });
    expect(json.supportedInterfaces).toHaveLength(4);
  });

  it("an unknown agent is a 404", async () => {
    const { status, json } = await call(routes.agentCard.GET, { params: { agent: "nobody" } });
    expect({ status, code: json.code }).toEqual({ status: 404, code: "agent_not_found" });
  });
});
