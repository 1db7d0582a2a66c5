import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideTurn } from "@/lib/agent/decisions";
import { closeConnections } from "@/lib/agent/mcp/connections";
import { modelAgent } from "@/lib/agent/model-agent";
import { cancelTurn, startTurn } from "@/lib/agent/runtime";
import { getDb } from "@/lib/db/connection";
import { getSession, listEvents } from "@/lib/db/queries";
import { fixture } from "./helpers";
import { httpConfig, httpToolServer } from "./support/mcp-servers";

// A minimal OpenAI-compatible streaming endpoint: a tool call for "remember K is V", the tool
// result echoed once a tool answered, 401 for "fail", otherwise a slow stream of words. Asked for usage, it
// reports 10 prompt tokens per message sent and 3 completion tokens.
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
  const request = JSON.parse(body);
  requests.push(request);
  const messages: { role: string; content: unknown }[] = request.messages;
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
  if (request.stream_options?.include_usage) {
    const usage = { prompt_tokens: 10 * messages.length, completion_tokens: 3, total_tokens: 10 * messages.length + 3 };
    res.write(`data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [], usage })}\n\n`);
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
    models: [{ name: "fake", model: "fake", baseURL: `http://127.0.0.1:${port}/v1`, apiKey: "k" }],
    mcp: [],
  });

const modelsAsked = () => requests.map((r) => (r as { model: string }).model);

describe("model agent through the runtime", () => {
  it("runs each turn on the model it names; each model call's usage goes on its first event and is summed and priced on the task", async () => {
    const f = await fixture({}, "assistant");
    const priced = modelAgent({
      name: "assistant",
      description: "",
      instruction: "",
      models: [
        { name: "small", model: "fake-small", baseURL: `http://127.0.0.1:${port}/v1` },
        {
          name: "big",
          model: "fake-big",
          baseURL: `http://127.0.0.1:${port}/v1`,
          price: { input_per_million: 2, output_per_million: 10, currency: "USD" },
        },
      ],
      mcp: [],
    });
    expect(priced.models).toEqual([
      { name: "small" },
      { name: "big", price: { input_per_million: 2, output_per_million: 10, currency: "USD" } },
    ]);
    requests.length = 0;
    const task = await (
      await startTurn({ userId: f.userId, sessionId: f.sessionId, agent: priced, text: "remember color is red", model: "big" })
    ).done;
    expect(modelsAsked()).toEqual(["fake-big", "fake-big"]);
    // Two model calls: the tool call (system + user: 20 prompt tokens) and the answer (system, user, call, result: 40).
    const events = (await listEvents(f.userId, f.sessionId, "all")).items;
    expect(events.map((e) => e.usage_metadata ?? null)).toEqual([
      null,
      { prompt_token_count: 20, candidates_token_count: 3, total_token_count: 23 },
      null,
      { prompt_token_count: 40, candidates_token_count: 3, total_token_count: 43 },
    ]);
    expect(events.map((e) => e.custom_metadata?.retrace_model)).toEqual(["big", "big", "big", "big"]);
    expect(task.metadata).toMatchObject({
      retrace_model: "big",
      kagent_usage_metadata: { prompt_token_count: 60, candidates_token_count: 6, total_token_count: 66 },
      retrace_cost: { amount: (60 * 2 + 6 * 10) / 1e6, currency: "USD" },
    });
    const unpriced = await (await startTurn({ userId: f.userId, sessionId: f.sessionId, agent: priced, text: "remember size is 2" })).done;
    expect(modelsAsked().slice(2)).toEqual(["fake-small", "fake-small"]);
    expect(unpriced.metadata?.retrace_cost).toBeUndefined();
    await expect(
      startTurn({ userId: f.userId, sessionId: f.sessionId, agent: priced, text: "hi", model: "fake-big" }),
    ).rejects.toMatchObject({
      code: "unknown_model",
    });
  });

  it("an MCP call that waits for approval: the model is offered the server's tools, and after approval sees the result, never the confirmation", async () => {
    const tools = await httpToolServer();
    const world = httpConfig(tools, { approval: "ask" });
    try {
      const f = await fixture({}, "assistant");
      const withTools = modelAgent({
        name: "assistant",
        description: "",
        instruction: "",
        models: [{ name: "fake", model: "fake", baseURL: `http://127.0.0.1:${port}/v1` }],
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
      // One turn over two runs: its usage adds up on the task, and each run's is charged once.
      const total = (n: number) => expect.objectContaining({ total_token_count: n });
      expect(paused.metadata?.kagent_usage_metadata).toEqual(total(23));
      expect(done.metadata?.kagent_usage_metadata).toEqual(total(23 + 43));
      const db = await getDb();
      expect(Number((await db.one<{ n: number }>(sql`SELECT tokens_used AS n FROM users WHERE id = ${f.userId}`))?.n)).toBe(66);
      const events = (await listEvents(f.userId, f.sessionId, "all")).items;
      expect(events.filter((e) => e.author !== "user").every((e) => e.custom_metadata?.retrace_model === "fake")).toBe(true);
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
      models: [{ name: "fake", model: "fake", baseURL: `http://127.0.0.1:${deadPort}/v1` }],
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
