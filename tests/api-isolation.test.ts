import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { type Call, call, guestWithChat, newGuest, routes, snapshot } from "./support/api";

/** Every route that touches one session, as a request template. */
function sessionRequests(sessionId: string, invocationId: string): [string, unknown, Call][] {
  const params = { id: sessionId };
  const file = { ...params, filename: "notes.txt" };
  return [
    ["GET session", routes.session.GET, { params }],
    ["PATCH session", routes.session.PATCH, { method: "PATCH", params, body: { name: "mine now" } }],
    ["DELETE session", routes.session.DELETE, { method: "DELETE", params }],
    ["GET events", routes.events.GET, { params }],
    ["GET effective events", routes.events.GET, { params, path: "/x?view=effective" }],
    ["POST events", routes.events.POST, { method: "POST", params, body: { invocation_id: "x", author: "user" } }],
    ["GET tasks", routes.tasks.GET, { params }],
    ["GET all tasks", routes.tasks.GET, { params, path: "/x?include_rewound=true" }],
    ["POST rewind", routes.rewind.POST, { method: "POST", params, body: { rewind_before_invocation_id: invocationId } }],
    ["POST fork", routes.fork.POST, { method: "POST", params, body: { rewind_before_invocation_id: invocationId } }],
    ["POST duplicate", routes.fork.POST, { method: "POST", params, body: {} }],
    ["GET artifacts", routes.artifacts.GET, { params }],
    ["POST artifact", routes.artifacts.POST, { method: "POST", params, body: { filename: "x.txt", text: "x" } }],
    ["GET artifact", routes.artifactFile.GET, { params: file }],
    ["GET artifact version", routes.artifactFile.GET, { params: file, path: "/x?version=0" }],
    ["GET tree", routes.tree.GET, { params }],
    ["GET compare", routes.compare.GET, { params, path: `/x?a=${invocationId}&b=${invocationId}` }],
    ["PUT label", routes.label.PUT, { method: "PUT", params: { ...params, invocationId }, body: { label: "mine", pinned: true } }],
  ];
}

describe("isolation (docs/api.md § Authentication)", () => {
  it("another user gets 404 from every session route and changes nothing; lists never mix", async () => {
    const alice = await guestWithChat();
    const bob = await newGuest();
    const before = await snapshot();
    for (const [name, route, request] of sessionRequests(alice.sessionId, alice.invocations[1])) {
      const { status, json } = await call(route, { ...request, token: bob.token });
      expect({ name, status, code: json?.code }).toEqual({ name, status: 404, code: "not_found" });
    }
    expect(await snapshot()).toEqual(before);
    expect((await call(routes.sessions.GET, { token: bob.token })).json.data).toEqual([]);
    expect((await call(routes.sessions.GET, { token: alice.token })).json.data).toHaveLength(1);
  });

  it("another user's A2A messages, tasks/get and tasks/cancel fail and change nothing", async () => {
    const alice = await guestWithChat();
    const bob = await newGuest();
    const { json: tasks } = await call(routes.tasks.GET, { token: alice.token, params: { id: alice.sessionId } });
    const before = await snapshot();
    const rpc = (method: string, params: unknown) =>
      call(routes.a2a.POST, {
        method: "POST",
        token: bob.token,
        params: { agent: "demo" },
        body: { jsonrpc: "2.0", id: 1, method, params },
      });
    const message = (metadata?: object) => ({
      kind: "message",
      messageId: "m",
      role: "user",
      parts: [{ kind: "text", text: "hi" }],
      contextId: alice.sessionId,
      metadata,
    });
    for (const [method, params] of [
      ["message/send", { message: message() }],
      ["message/send", { message: message({ kagent_rewind_before_invocation_id: alice.invocations[0] }) }],
      ["message/stream", { message: message() }],
      ["tasks/get", { id: tasks.data[0].id }],
      ["tasks/cancel", { id: tasks.data[0].id }],
    ] as const) {
      const { json, text } = await rpc(method, params);
      expect(json?.error ?? JSON.parse(text.replace(/^data: /, "")).error, method).toBeDefined();
      expect(text).not.toContain("set color");
    }
    expect(await snapshot()).toEqual(before);
  });

  it("no token, a forged token, a tampered token or garbage: 401 everywhere", async () => {
    const alice = await guestWithChat();
    const [header, payload, signature] = alice.token.split(".");
    const bob = await newGuest();
    const tampered = `${header}.${Buffer.from(JSON.stringify({ sub: bob.user_id })).toString("base64url")}.${signature}`;
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(alice.user_id)
      .sign(new TextEncoder().encode("not our secret"));
    const before = await snapshot();
    for (const token of [null, forged, tampered, "garbage", `${header}.${payload}.`]) {
      for (const [name, route, request] of [
        ...sessionRequests(alice.sessionId, alice.invocations[0]),
        ["GET sessions", routes.sessions.GET, {}],
        ["POST sessions", routes.sessions.POST, { method: "POST", body: {} }],
        ["GET agents", routes.agents.GET, {}],
        [
          "A2A",
          routes.a2a.POST,
          { method: "POST", params: { agent: "demo" }, body: { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "x" } } },
        ],
      ] as [string, unknown, Call][]) {
        const { status, json } = await call(route, { ...request, token });
        expect({ name, status, code: json?.code }).toEqual({ name, status: 401, code: "unauthorized" });
      }
    }
    expect(await snapshot()).toEqual(before);
  });
});
