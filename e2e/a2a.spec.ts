import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { type Message, Role, SendMessageRequest, type StreamResponse, type Task, TaskState } from "@a2a-js/sdk";
import { type Client, ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { expect, test } from "@playwright/test";

/**
 * The official A2A client (`@a2a-js/sdk` 1.x) against the production build (docs/api.md, "A2A"): in its default
 * v1.0 mode, and in its opt-in v0.3-compat mode as it talks to a v0.3 peer.
 */

async function guestToken(baseURL: string): Promise<string> {
  const response = await fetch(`${baseURL}/api/auth/guest`, { method: "POST" });
  return (await response.json()).data.token;
}

const withToken =
  (token: string): typeof fetch =>
  (input, init) =>
    fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${token}` } });

/** v1.0: discovery through the public card, exactly as `ClientFactory` does it. */
async function v1Client(baseURL: string, token: string): Promise<Client> {
  const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl: withToken(token) })] });
  return factory.createFromUrl(`${baseURL}/api/a2a/demo/`);
}

/** v0.3-compat: the client as it meets a v0.3 peer — the card a v0.3 caller gets, without the v1.0 interfaces. */
async function legacyClient(baseURL: string, token: string): Promise<Client> {
  const { supportedInterfaces: _, ...card } = await (await fetch(`${baseURL}/api/a2a/demo/.well-known/agent-card.json`)).json();
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      cardResolver: new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }),
      transports: [new JsonRpcTransportFactory({ legacyCompat: { enabled: true }, fetchImpl: withToken(token) })],
    }),
  );
  return factory.createFromAgentCard(card);
}

const request = (text: string, contextId?: string, metadata?: Record<string, unknown>) =>
  SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: text ? [{ text }] : [], contextId, metadata },
  });

async function send(client: Client, text: string, contextId?: string, metadata?: Record<string, unknown>): Promise<Task> {
  const result = await client.sendMessage(request(text, contextId, metadata));
  expect("status" in result).toBe(true);
  return result as Task;
}

const textOf = (message: Message | undefined) => message?.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
const stateOf = (event: StreamResponse) =>
  event.payload?.$case === "task"
    ? event.payload.value.status?.state
    : event.payload?.$case === "statusUpdate"
      ? event.payload.value.status?.state
      : undefined;

for (const mode of [
  { name: "v1.0", protocol: "1.0", connect: v1Client },
  { name: "v0.3-compat", protocol: "0.3", connect: legacyClient },
]) {
  test.describe(`official client, ${mode.name} mode`, () => {
    let client: Client;
    test.beforeEach(async ({ baseURL }) => {
      client = await mode.connect(baseURL!, await guestToken(baseURL!));
      expect(client.protocolVersion).toBe(mode.protocol);
    });

    test("discovery needs no credentials; the card says how to get them", async ({ baseURL }) => {
      const card = await client.getAgentCard();
      expect(card.name).toBe("demo");
      expect(card.capabilities?.streaming).toBe(true);
      const unauthenticated = await new ClientFactory().createFromUrl(`${baseURL}/api/a2a/demo/`);
      expect(Object.keys((await unauthenticated.getAgentCard()).securitySchemes)).toEqual(["guestToken"]);
      await expect(unauthenticated.getTask({ tenant: "", id: "x" })).rejects.toThrow(/401|Authentication required/);
    });

    test("send, get, tool calls as data parts and kagent metadata", async () => {
      const task = await send(client, "set color to red");
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const invocationId = task.metadata?.kagent_invocation_id;
      expect(invocationId).toMatch(/^e-/);
      expect(task.history.map((m) => m.role)).toEqual([Role.ROLE_USER, Role.ROLE_AGENT, Role.ROLE_AGENT, Role.ROLE_AGENT]);
      expect(task.history.every((m) => m.metadata?.kagent_invocation_id === invocationId)).toBe(true);
      expect(task.history[1].parts[0]).toMatchObject({
        content: { $case: "data", value: { name: "update_state" } },
        metadata: { kagent_type: "function_call" },
      });
      expect(task.history[2].metadata?.kagent_state_delta).toEqual({ color: "red" });
      expect(await client.getTask({ tenant: "", id: task.id })).toEqual(task);
      expect((await client.getTask({ tenant: "", id: task.id, historyLength: 1 })).history).toHaveLength(1);
    });

    test("stream: the task, streamed text, stored messages (a saved file's artifact delta), the final state", async () => {
      const events: StreamResponse[] = [];
      for await (const event of client.sendMessageStream(request("save file notes.txt with content hello"))) events.push(event);
      expect(events[0].payload?.$case).toBe("task");
      expect(stateOf(events.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
      const messages = events.flatMap((e) =>
        e.payload?.$case === "statusUpdate" && e.payload.value.status?.message ? [e.payload.value.status.message] : [],
      );
      expect(messages.some((m) => m.metadata?.adk_partial)).toBe(true);
      expect(messages.some((m) => (m.metadata?.kagent_artifact_delta as Record<string, number>)?.["notes.txt"] === 0)).toBe(true);
      const taskId = events[0].payload?.$case === "task" ? events[0].payload.value.id : "";
      expect(textOf((await client.getTask({ tenant: "", id: taskId })).history.at(-1))).toContain("notes.txt");
    });

    test("cancel stops a running turn and keeps what streamed", async () => {
      const stream = client.sendMessageStream(request("tell me what you can do"));
      const first = (await stream.next()).value as StreamResponse;
      const taskId = first.payload?.$case === "task" ? first.payload.value.id : "";
      await stream.next();
      const canceled = await client.cancelTask({ tenant: "", id: taskId, metadata: undefined });
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      expect(canceled.history.at(-1)?.metadata?.kagent_interrupted).toBe(true);
      await stream.return(undefined);
    });

    test("a client that goes away does not stop its turn; subscribe streams the rest, or the final task", async () => {
      const reader = new AbortController();
      const stream = client.sendMessageStream(request("tell me what you can do"), { signal: reader.signal });
      const first = (await stream.next()).value as StreamResponse;
      const taskId = first.payload?.$case === "task" ? first.payload.value.id : "";
      await stream.next();
      reader.abort();
      await stream.return(undefined).catch(() => undefined);

      const rest: StreamResponse[] = [];
      for await (const event of client.resubscribeTask({ tenant: "", id: taskId })) rest.push(event);
      expect(rest[0].payload?.$case).toBe("task");
      expect(stateOf(rest.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);

      const again: StreamResponse[] = [];
      for await (const event of client.resubscribeTask({ tenant: "", id: taskId })) again.push(event);
      expect(again).toHaveLength(1);
      expect(stateOf(again[0])).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    test("the rewind control message: without text one stored task of the effective history; with text a new turn", async () => {
      const first = await send(client, "set color to red");
      const second = await send(client, "set color to blue", first.contextId);
      const rewound = await send(client, "", first.contextId, {
        kagent_rewind_before_invocation_id: second.metadata?.kagent_invocation_id,
      });
      expect(rewound.history).toEqual(first.history);
      expect(await client.getTask({ tenant: "", id: rewound.id })).toEqual(rewound);
      const what = await send(client, "what is color?", first.contextId);
      expect(textOf(what.history.at(-1))).toContain("red");
      const edited = await send(client, "recap", first.contextId, {
        kagent_rewind_before_invocation_id: what.metadata?.kagent_invocation_id,
      });
      expect(textOf(edited.history.at(-1))).toBe("Here is what you said so far:\n\n1. set color to red");
    });

    test("ListTasks pages a session's tasks (v1.0 only: v0.3 has no such method)", async () => {
      const first = await send(client, "one");
      await send(client, "two", first.contextId);
      await send(client, "three", first.contextId);
      const list = (pageToken = "") =>
        client.listTasks({ tenant: "", contextId: first.contextId, pageSize: 2, pageToken, status: 0, statusTimestampAfter: undefined });
      if (mode.protocol === "0.3") {
        await expect(list()).rejects.toThrow("Method not found: tasks/list");
        return;
      }
      const one = await list();
      const two = await list(one.nextPageToken);
      expect([...one.tasks, ...two.tasks].map((t) => textOf(t.history[0]))).toEqual(["three", "two", "one"]);
      expect(two.nextPageToken).toBe("");
      expect(one.totalSize).toBe(3);
    });
  });
}

test.describe("v0.3 JSON-RPC as kagent sends it", () => {
  test("message/send, message/stream, tasks/get; the REST API shows the same v0.3 tasks", async ({ request, baseURL }) => {
    const headers = { authorization: `Bearer ${await guestToken(baseURL!)}` };
    const rpc = (method: string, params: unknown) =>
      request.post("/api/a2a/demo", { headers, data: { jsonrpc: "2.0", id: "k1", method, params } });
    const message = (text: string, contextId?: string) => ({
      kind: "message",
      role: "user",
      messageId: crypto.randomUUID(),
      parts: [{ kind: "text", text }],
      contextId,
    });

    const sent = (await (await rpc("message/send", { message: message("set color to red") })).json()).result;
    expect(sent).toMatchObject({ kind: "task", status: { state: "completed" } });
    const stream = await rpc("message/stream", { message: message("what is color?", sent.contextId) });
    expect(stream.headers()["content-type"]).toContain("text/event-stream");
    const frames = (await stream.text())
      .split("\n\n")
      .filter(Boolean)
      .map((f) => JSON.parse(f.replace(/^data: /, "")));
    expect(frames[0]).toMatchObject({ jsonrpc: "2.0", id: "k1", result: { kind: "task" } });
    expect(frames.at(-1).result).toMatchObject({ kind: "status-update", final: true, status: { state: "completed" } });
    const got = (await (await rpc("tasks/get", { id: frames[0].result.id })).json()).result;
    expect(got.history.at(-1).parts[0].text).toContain("red");
    const rest = await (await request.get(`/api/sessions/${sent.contextId}/tasks`, { headers })).json();
    expect(rest.data).toEqual([sent, got]);
  });
});

test("the README's A2A example works as written", async ({ baseURL }) => {
  const readme = readFileSync("README.md", "utf8");
  const section = readme.slice(readme.indexOf("## A2A"));
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  expect(code).toBeTruthy();
  const file = `.a2a-readme-example-${process.pid}.mjs`;
  writeFileSync(file, code!.replaceAll("http://localhost:3000", baseURL!));
  try {
    const output = execFileSync(process.execPath, [file], { encoding: "utf8", timeout: 30_000 });
    expect(output).toMatch(/^[\w-]+ Done — \*\*color\*\* is now `red`\.$/m);
  } finally {
    rmSync(file, { force: true });
  }
});
