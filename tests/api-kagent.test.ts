/**
 * kagent's UI against the API (docs/api.md, "kagent's UI"): its agent references and paths, its upsert
 * rename, its share body, the message ids it matches, and error text a person reads.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as namespacedCard from "@/app/api/a2a/[agent]/[name]/.well-known/agent-card.json/route";
import * as namespacedA2A from "@/app/api/a2a/[agent]/[name]/route";
import * as shares from "@/app/api/sessions/[id]/shares/route";
import * as sessionsOfAgent from "@/app/api/sessions/agent/[namespace]/[agent]/route";
import { legacyMessage, rpc, sseFrames } from "./support/a2a";
import { call, newGuest, routes, snapshot } from "./support/api";

let user: { user_id: string; token: string };
beforeEach(async () => {
  process.env.DEMO_WORD_DELAY_MS = "0";
  user = await newGuest();
});
afterEach(() => {
  delete process.env.DEMO_WORD_DELAY_MS;
  delete process.env.RETRACE_KAGENT_NAMESPACE;
  delete process.env.OPENAI_BASE_URL;
});

const createSession = (body: unknown, token = user.token) => call(routes.sessions.POST, { method: "POST", token, body });
const sidebar = (namespace: string, agent: string, token = user.token, path = "/api/x") =>
  call(sessionsOfAgent.GET, { token, params: { namespace, agent }, path });
const send = async (text: string, opts: { contextId?: string; messageId?: string } = {}) => {
  const message = { ...legacyMessage(text, opts.contextId), ...(opts.messageId ? { messageId: opts.messageId } : {}) };
  return rpc(user.token, "message/send", { message });
};

describe("sessions as kagent's UI makes them", () => {
  it("agent_ref names the agent in kagent's namespace; another namespace or agent is an unknown one", async () => {
    const created = await createSession({ agent_ref: "kagent/demo", name: "set color to red" });
    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({ agent: "demo", name: "set color to red" });
    expect((await createSession({ agent_ref: "demo" })).json.data.agent).toBe("demo");

    const before = await snapshot();
    for (const agent_ref of ["other/demo", "kagent/nobody", "kagent/demo/x"]) {
      const refused = await createSession({ agent_ref });
      expect({ status: refused.status, code: refused.json.code, error: refused.json.error }).toEqual({
        status: 422,
        code: "invalid_reference",
        error: `Unknown agent: ${agent_ref}`,
      });
    }
    const both = await createSession({ agent: "demo", agent_ref: "kagent/demo" });
    expect([both.status, both.json.error]).toEqual([400, "Give agent or agent_ref, not both"]);
    expect(await snapshot()).toEqual(before);
  });

  it("RETRACE_KAGENT_NAMESPACE sets the namespace", async () => {
    process.env.RETRACE_KAGENT_NAMESPACE = "team-a";
    expect((await createSession({ agent_ref: "team-a/demo" })).status).toBe(201);
    expect((await createSession({ agent_ref: "kagent/demo" })).status).toBe(422);
    expect((await sidebar("team-a", "demo")).json.data).toHaveLength(1);
    expect((await sidebar("kagent", "demo")).status).toBe(404);
  });

  it("posting a session again with its id renames it (kagent's upsert); only the caller's, of that agent", async () => {
    const id = (await createSession({ agent_ref: "kagent/demo", name: "New Chat" })).json.data.id;
    const renamed = await createSession({ id, agent_ref: "kagent/demo", name: "Colours" });
    expect(renamed.status).toBe(200);
    expect(renamed.json.data).toMatchObject({ id, name: "Colours", agent: "demo" });
    expect((await call(routes.sessions.GET, { token: user.token })).json.data.map((s: { name: string }) => s.name)).toEqual(["Colours"]);
    expect((await createSession({ id, name: "By id alone" })).json.data.name).toBe("By id alone");

    process.env.OPENAI_BASE_URL = "http://127.0.0.1:9/v1";
    const stranger = await newGuest();
    const before = await snapshot();
    const refusals = [
      [await createSession({ id, agent_ref: "kagent/demo", name: "Mine now" }, stranger.token), 404, "not_found"],
      [await createSession({ id: crypto.randomUUID(), agent_ref: "kagent/demo", name: "Nobody's" }), 404, "not_found"],
      [await createSession({ id, agent_ref: "kagent/assistant", name: "Other agent" }), 400, "invalid_request"],
      [await createSession({ id, agent_ref: "kagent/demo" }), 400, "invalid_request"],
      [await createSession({ id, name: "x", state: { a: 1 } }), 400, "invalid_request"],
    ] as const;
    for (const [response, status, code] of refusals) expect([response.status, response.json.code]).toEqual([status, code]);
    expect(refusals[2][0].json.error).toBe(`Session ${id} belongs to agent demo`);
    expect(await snapshot()).toEqual(before);
  });

  it("GET /api/sessions/agent/{namespace}/{agent}: the caller's chats of that agent, newest first", async () => {
    process.env.OPENAI_BASE_URL = "http://127.0.0.1:9/v1";
    const first = (await createSession({ agent_ref: "kagent/demo", name: "one" })).json.data.id;
    await createSession({ agent_ref: "kagent/assistant", name: "other agent" });
    const second = (await createSession({ agent_ref: "kagent/demo", name: "two" })).json.data.id;
    await createSession({ agent_ref: "kagent/demo", name: "not yours" }, (await newGuest()).token);

    const listed = await sidebar("kagent", "demo");
    expect(listed.status).toBe(200);
    expect(listed.json.data.map((s: { id: string }) => s.id)).toEqual([second, first]);
    expect(listed.json.data[0]).toMatchObject({
      name: "two",
      agent: "demo",
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const page = await sidebar("kagent", "demo", user.token, "/api/x?limit=1");
    expect(page.json).toMatchObject({ data: [{ id: second }], next_before: expect.any(String) });
    for (const [namespace, agent] of [
      ["other", "demo"],
      ["kagent", "nobody"],
    ]) {
      const missing = await sidebar(namespace, agent);
      expect([missing.status, missing.json]).toEqual([
        404,
        { error: `Unknown agent: ${agent === "demo" ? `${namespace}/demo` : agent}`, code: "agent_not_found" },
      ]);
    }
    expect((await sidebar("kagent", "demo", "")).status).toBe(401);
  });
});

describe("kagent's share body", () => {
  it('{"read_only": true} makes Retrace\'s read-only link; false is refused; links say read_only', async () => {
    const id = (await createSession({ agent_ref: "kagent/demo" })).json.data.id;
    const created = await call(shares.POST, { method: "POST", token: user.token, params: { id }, body: { read_only: true } });
    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({ token: expect.any(String), read_only: true, include_tools: false, include_files: false });
    expect((await call(shares.GET, { token: user.token, params: { id } })).json.data).toEqual([
      expect.objectContaining({ id: created.json.data.id, read_only: true }),
    ]);
    const before = await snapshot();
    const refused = await call(shares.POST, { method: "POST", token: user.token, params: { id }, body: { read_only: false } });
    expect([refused.status, refused.json]).toEqual([
      400,
      { error: "read_only: Retrace's share links are read-only", code: "invalid_request" },
    ]);
    expect(await snapshot()).toEqual(before);
  });
});

describe("error text a person reads (kagent shows it in toasts)", () => {
  it("zod's messages arrive on one line, without its bullets, naming the field", async () => {
    const bad = await createSession({ agent_ref: "kagent/demo", name: "  ", color: "red" });
    expect(bad.json.error).toBe('name: Name must not be empty; Unrecognized key: "color"');
    const id = (await createSession({})).json.data.id;
    const event = await call(routes.events.POST, { method: "POST", token: user.token, params: { id }, body: [{ author: "user" }] });
    expect(event.json.error).toMatch(/^Event 0: invocation_id: Invalid input/);
    const paging = await call(routes.sessions.GET, { token: user.token, path: "/api/sessions?limit=0" });
    expect(paging.json.error).toBe("limit must be at least 1");
    const { json } = await rpc(user.token, "message/send", { message: { ...legacyMessage("hi"), messageId: 7 } });
    expect(json.error).toMatchObject({ code: -32602, message: "message.messageId is required" });
    for (const text of [bad.json.error, event.json.error, paging.json.error, json.error.message]) expect(text).not.toMatch(/✖|→|\n/);
  });
});

describe("message ids", () => {
  it("the stored user message keeps the sender's messageId; a retry answers its task; a fork shows a new id", async () => {
    const messageId = crypto.randomUUID();
    const task = (await send("set color to red", { messageId })).json.result;
    expect(task.history[0]).toMatchObject({ messageId, role: "user", parts: [{ kind: "text", text: "set color to red" }] });
    const { contextId } = task;
    const listed = (await call(routes.tasks.GET, { token: user.token, params: { id: contextId } })).json.data;
    expect(listed[0].history[0].messageId).toBe(messageId);
    expect((await call(routes.events.GET, { token: user.token, params: { id: contextId } })).json.data[0].id).toBe(messageId);

    expect((await send("set color to red", { contextId, messageId })).json.result.id).toBe(task.id);
    const again = (await send("set color to blue", { contextId, messageId: "kagent-2" })).json.result;
    expect(again.history[0].messageId).toBe("kagent-2");

    const fork = (await call(routes.fork.POST, { method: "POST", token: user.token, params: { id: contextId }, body: {} })).json.data;
    const forked = (await call(routes.tasks.GET, { token: user.token, params: { id: fork.id } })).json.data;
    expect(forked.map((t: { history: { messageId: string }[] }) => t.history[0].messageId)).not.toContain(messageId);
    // A fork starts with no message ids: the same messageId there is a new send.
    const inFork = (await send("set color to green", { contextId: fork.id, messageId })).json.result;
    expect(inFork.id).not.toBe(task.id);
    expect(inFork.history[0].messageId).toBe(messageId);
  });

  it("a messageId longer than an event id may be is refused", async () => {
    const before = await snapshot();
    const { json } = await send("hi", { messageId: "m".repeat(201) });
    expect(json.error).toMatchObject({ code: -32602, message: "message.messageId is at most 200 characters" });
    expect(await snapshot()).toEqual(before);
  });
});

describe("A2A at kagent's path, /api/a2a/{namespace}/{agent}", () => {
  const post = (namespace: string, agent: string, body: unknown, headers: Record<string, string> = {}) =>
    call(namespacedA2A.POST, { method: "POST", token: user.token, params: { agent: namespace, name: agent }, body, headers });

  it("serves the agent's JSON-RPC as kagent's UI streams to it; another namespace has no agents", async () => {
    const message = legacyMessage("set color to red");
    const stream = await post(
      "kagent",
      "demo",
      { jsonrpc: "2.0", method: "message/stream", params: { message, metadata: {} }, id: "k1" },
      {
        accept: "text/event-stream",
      },
    );
    const frames = sseFrames(stream.text).map((f) => f.result);
    expect(frames[0]).toMatchObject({ kind: "task", history: [{ messageId: message.messageId }] });
    expect(frames.at(-2)).toMatchObject({
      kind: "artifact-update",
      lastChunk: true,
      artifact: { parts: [{ text: "Done — **color** is now `red`." }] },
    });
    expect(frames.at(-1)).toMatchObject({ kind: "status-update", final: true, status: { state: "completed" } });

    const before = await snapshot();
    const elsewhere = await post("other", "demo", {
      jsonrpc: "2.0",
      method: "message/send",
      params: { message: legacyMessage("hi") },
      id: 1,
    });
    expect([elsewhere.status, elsewhere.json]).toEqual([404, { error: "Unknown agent: other/demo", code: "agent_not_found" }]);
    expect(await snapshot()).toEqual(before);
    expect((await call(namespacedA2A.POST, { method: "POST", params: { agent: "kagent", name: "demo" }, body: {} })).status).toBe(401);
  });

  it("has the agent's card there too", async () => {
    const card = await call(namespacedCard.GET, { params: { agent: "kagent", name: "demo" } });
    expect(card.json).toMatchObject({ name: "demo", url: "http://localhost/api/a2a/demo" });
    expect((await call(namespacedCard.GET, { params: { agent: "other", name: "demo" } })).status).toBe(404);
  });
});
