import { describe, expect, it } from "vitest";
import { call, guestWithChat, newGuest, routes } from "./support/api";

describe("HTTP API (docs/api.md § Requests)", () => {
  it("guest auth: 201 with a token and a signed httpOnly cookie", async () => {
    const { status, json, headers } = await call(routes.guest.POST, { method: "POST" });
    expect(status).toBe(201);
    expect(json.data).toEqual({ user_id: expect.any(String), token: expect.any(String) });
    expect(headers.get("set-cookie")).toMatch(/retrace_token=.*HttpOnly/);
  });

  it("agents, and session create / list / get / rename / delete", async () => {
    const { token } = await newGuest();
    expect((await call(routes.agents.GET, { token })).json.data[0]).toMatchObject({ name: "demo" });
    const created = await call(routes.sessions.POST, {
      method: "POST",
      token,
      body: { name: "Plan", state: { a: 1, "user:b": 2, "temp:c": 3 } },
    });
    expect(created.status).toBe(201);
    const id = created.json.data.id;
    expect(created.json.data.state).toEqual({ a: 1, "user:b": 2 });
    expect((await call(routes.sessions.GET, { token })).json.data.map((s: { id: string }) => s.id)).toEqual([id]);
    const got = await call(routes.session.GET, { token, params: { id } });
    expect(got.json.data).toMatchObject({ session: { id, name: "Plan", agent: "demo" }, events: [] });
    expect((await call(routes.session.PATCH, { method: "PATCH", token, params: { id }, body: { name: "Renamed" } })).json.data.name).toBe(
      "Renamed",
    );
    expect((await call(routes.session.DELETE, { method: "DELETE", token, params: { id } })).status).toBe(200);
    expect((await call(routes.session.GET, { token, params: { id } })).status).toBe(404);
  });

  it("events: one, an array, kagent's {id, data} and camelCase; stored snake_case, in order", async () => {
    const { token } = await newGuest();
    const id = (await call(routes.sessions.POST, { method: "POST", token, body: {} })).json.data.id;
    const post = (body: unknown) => call(routes.events.POST, { method: "POST", token, params: { id }, body });
    expect((await post({ invocation_id: "i1", author: "user", content: { parts: [{ text: "one" }] } })).status).toBe(201);
    await post([
      { invocationId: "i1", author: "agent", actions: { stateDelta: { camelKey: 1 } } },
      { invocation_id: "i2", author: "user" },
    ]);
    await post({ id: "k1", data: JSON.stringify({ invocation_id: "i2", author: "agent", content: { parts: [{ text: "kagent" }] } }) });
    const events = (await call(routes.events.GET, { token, params: { id } })).json.data;
    expect(events.map((e: { invocation_id: string }) => e.invocation_id)).toEqual(["i1", "i1", "i2", "i2"]);
    expect(events[1].actions.state_delta).toEqual({ camelKey: 1 });
  });

  it("rewind → 200 {event, session}; effective views; tasks with include_rewound; fork → 201", async () => {
    const alice = await guestWithChat();
    const params = { id: alice.sessionId };
    const rewound = await call(routes.rewind.POST, {
      method: "POST",
      token: alice.token,
      params,
      body: { rewind_before_invocation_id: alice.invocations[1] },
    });
    expect(rewound.status).toBe(200);
    expect(rewound.json.data.event.actions.rewind_before_invocation_id).toBe(alice.invocations[1]);
    expect(rewound.json.data.session.state).toEqual({ color: "red" });
    const effective = (await call(routes.events.GET, { token: alice.token, params, path: "/x?view=effective" })).json.data;
    expect(new Set(effective.map((e: { invocation_id: string }) => e.invocation_id))).toEqual(new Set([alice.invocations[0]]));
    expect((await call(routes.tasks.GET, { token: alice.token, params })).json.data).toHaveLength(1);
    const all = (await call(routes.tasks.GET, { token: alice.token, params, path: "/x?include_rewound=true" })).json.data;
    expect(all.map((t: { metadata: { rewound?: boolean } }) => Boolean(t.metadata.rewound))).toEqual([false, true, true]);
    expect((await call(routes.artifacts.GET, { token: alice.token, params })).json.data).toEqual([]);
    const old = await call(routes.artifactFile.GET, {
      token: alice.token,
      params: { ...params, filename: "notes.txt" },
      path: "/x?version=0",
    });
    expect(old.text).toBe("hi");
    expect((await call(routes.artifactFile.GET, { token: alice.token, params: { ...params, filename: "notes.txt" } })).status).toBe(404);

    const fork = await call(routes.fork.POST, {
      method: "POST",
      token: alice.token,
      params,
      body: { rewind_before_invocation_id: alice.invocations[0], name: "Fresh" },
    });
    expect(fork.status).toBe(201);
    expect(fork.json.data).toMatchObject({
      name: "Fresh",
      forked_from_session_id: alice.sessionId,
      forked_before_invocation_id: alice.invocations[0],
      state: {},
    });
  });

  it("artifacts: text and base64 saves append versions; the listing shows the latest", async () => {
    const alice = await guestWithChat();
    const params = { id: alice.sessionId };
    const save = (body: unknown) => call(routes.artifacts.POST, { method: "POST", token: alice.token, params, body });
    expect((await save({ filename: "notes.txt", text: "second" })).json.data).toEqual({ filename: "notes.txt", version: 1 });
    expect((await save({ filename: "bin", data_base64: Buffer.from([1, 2, 3]).toString("base64") })).status).toBe(201);
    expect((await call(routes.artifacts.GET, { token: alice.token, params })).json.data).toEqual([
      { filename: "bin", version: 0, mime_type: "application/octet-stream", size: 3, restored_from: null },
      { filename: "notes.txt", version: 1, mime_type: "text/plain", size: 6, restored_from: null },
    ]);
  });

  it("A2A: agent card, and the rewind control message answers one task with the effective history", async () => {
    const alice = await guestWithChat();
    const card = await call(routes.agentCard.GET, { token: alice.token, params: { agent: "demo" } });
    expect(card.json).toMatchObject({ name: "demo", capabilities: { streaming: true } });
    const message = {
      kind: "message",
      messageId: "m",
      role: "user",
      parts: [],
      contextId: alice.sessionId,
      metadata: { kagent_rewind_before_invocation_id: alice.invocations[2] },
    };
    const { json } = await call(routes.a2a.POST, {
      method: "POST",
      token: alice.token,
      params: { agent: "demo" },
      body: { jsonrpc: "2.0", id: 7, method: "message/send", params: { message } },
    });
    expect(json.result.kind).toBe("task");
    expect(json.result.history.filter((m: { role: string }) => m.role === "user")).toHaveLength(2);
  });
});
