import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideTurn } from "@/lib/agent/decisions";
import { closeConnections } from "@/lib/agent/mcp/connections";
import { modelAgent } from "@/lib/agent/model-agent";
import { cancelTurn, startTurn } from "@/lib/agent/runtime";
import { getSession, listEvents } from "@/lib/db/queries";
import { fixture } from "./helpers";
import { httpConfig, httpToolServer } from "./support/mcp-servers";

// A minimal OpenAI-compatible streaming endpoint: a tool call for "remember K is V", the tool
// result echoed once a tool answered, 401 for "fail", otherwise a slow stream of words.
let server: Server;
/** Every request body the fake endpoint got, in order. */
const requests: unknown[] = [];
let port = 0;

const sse = (res: ServerResponse, delta: object, finish: string | null = null) =>
  res.write(
    `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
  );

async function completions(req: IncomingMessage, res: ServerResponse) {
  let body = "";
  for await (const chunk of req) body += chunk;
  requests.push(JSON.parse(body));
  const messages: { role: string; content: unknown }[] = JSON.parse(body).messages;
  const last = messages.at(-1)!;
  const text = typeof last.content === "string" ? last.content : "";
  if (text.startsWith("fail"))
    return res.writeHead(401, { "content-type": "application/json" }).end('{"error":{"message":"Incorrect API key"}}');
  res.writeHead(200, { "content-type": "text/event-stream" });
  const remember = text.match(/^remember (\S+) is (.+)$/);
  const note = text.match(/^record (.+)$/);
  if (last.role === "tool") sse(res, { content: `Done: ${JSON.stringify(last.content)}` }, "stop");
  else if (note) {
    const args = JSON.stringify({ note: note[1] });
    sse(
      res,
      { tool_calls: [{ index: 0, id: "call_9", type: "function", function: { name: "world__record", arguments: args } }] },
      "tool_calls",
    );
  } else if (remember) {
    const args = JSON.stringify({ key: remember[1], value: remember[2] });
    sse(
      res,
      { tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "update_state", arguments: args } }] },
      "tool_calls",
    );
  } else {
    for (let i = 0; i < 100 && !res.destroyed; i++) {
      sse(res, { content: `word${i} ` });
      await new Promise((r) => setTimeout(r, 20));
    }
    sse(res, {}, "stop");
  }
  res.end("data: [DONE]\n\n");
}

beforeAll(async () => {
  server = createServer((req, res) => void completions(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  server.close();
});

const agent = () =>
  modelAgent({
    name: "assistant",
    description: "",
    instruction: "",
    baseURL: `http://127.0.0.1:${port}/v1`,
    model: "fake",
    apiKey: "k",
    mcp: [],
  });

describe("model agent through the runtime", () => {
  it("an MCP call that waits for approval: the model is offered the server's tools, and after approval sees the result, never the confirmation", async () => {
    const tools = await httpToolServer();
    const world = httpConfig(tools, { approval: "ask" });
    try {
      const f = await fixture({}, "assistant");
      const withTools = modelAgent({
        name: "assistant",
        description: "",
        instruction: "",
        baseURL: `http://127.0.0.1:${port}/v1`,
        model: "fake",
        mcp: [world],
      });
      const paused = await (await startTurn({ ...f, agent: withTools, text: "record milk" })).done;
      expect(paused.status.state).toBe("input-required");
      expect(tools.calls).toEqual([]);
      const resumed = await decideTurn({ userId: f.userId, agent: withTools, taskId: paused.id, decision: { decision_type: "approve" } });
      const done = await ("task" in resumed ? resumed.task : resumed.done);
      expect(done.status.state).toBe("completed");
      expect(tools.calls).toEqual(["milk"]);
      expect(done.history?.at(-1)?.parts[0]).toMatchObject({ kind: "text", text: expect.stringContaining("recorded milk") });
      const sent = requests.at(-1) as { messages: { role: string; content: unknown; tool_calls?: { function: { name: string } }[] }[] };
      expect(sent.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
      expect(sent.messages[2].tool_calls?.map((c) => c.function.name)).toEqual(["world__record"]);
    } finally {
      await closeConnections([world]);
      await tools.close();
    }
  });

  it("turns a tool call into call, response (with its state delta) and final text events", async () => {
    const f = await fixture({}, "assistant");
    const task = await (await startTurn({ userId: f.userId, sessionId: f.sessionId, agent: agent(), text: "remember color is red" })).done;
    expect(task.status.state).toBe("completed");
    const events = (await listEvents(f.userId, f.sessionId, "all")).items.slice(1);
    expect(events.map((e) => Object.keys(e.content!.parts![0])[0])).toEqual(["function_call", "function_response", "text"]);
    expect(events[1].actions?.state_delta).toEqual({ color: "red" });
    expect(events.at(-1)?.turn_complete).toBe(true);
    expect((await getSession(f.userId, f.sessionId)).state).toEqual({ color: "red" });
  });

  it("fails the task with the endpoint's error", async () => {
    const f = await fixture({}, "assistant");
    const task = await (await startTurn({ userId: f.userId, sessionId: f.sessionId, agent: agent(), text: "fail" })).done;
    expect(task.status.state).toBe("failed");
    expect(task.status.message?.parts[0]).toMatchObject({ kind: "text", text: expect.stringContaining("HTTP 401") });
    expect((await listEvents(f.userId, f.sessionId, "all")).items.at(-1)).toMatchObject({ error_code: "AGENT_ERROR" });
  });

  it("an unreachable endpoint fails the task with a clear message and stores only the user event and the error", async () => {
    const f = await fixture({}, "assistant");
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = modelAgent({
      name: "assistant",
      description: "",
      instruction: "",
      baseURL: `http://127.0.0.1:${deadPort}/v1`,
      model: "fake",
      mcp: [],
    });
    const task = await (await startTurn({ userId: f.userId, sessionId: f.sessionId, agent: unreachable, text: "hello" })).done;
    expect(task.status.state).toBe("failed");
    expect(task.status.message?.parts[0]).toMatchObject({ text: expect.stringContaining("The model endpoint failed") });
    const events = (await listEvents(f.userId, f.sessionId, "all")).items;
    expect(events.map((e) => e.author)).toEqual(["user", "assistant"]);
    expect(events[1]).toMatchObject({ error_code: "AGENT_ERROR", turn_complete: true });
    expect((await getSession(f.userId, f.sessionId)).state).toEqual({});
  });

  it("cancel keeps the streamed text, marked interrupted", async () => {
    const f = await fixture({}, "assistant");
    const running = await startTurn({ userId: f.userId, sessionId: f.sessionId, agent: agent(), text: "slow" });
    let partials = 0;
    for await (const update of running.updates) if (update.kind === "partial" && ++partials === 3) break;
    expect((await cancelTurn(f.userId, running.taskId))?.status.state).toBe("canceled");
    expect((await listEvents(f.userId, f.sessionId, "all")).items.at(-1)).toMatchObject({
      interrupted: true,
      content: { parts: [{ text: expect.stringMatching(/^word0 word1 word2/) }] },
    });
  });
});
