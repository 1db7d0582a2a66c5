import { describe, expect, it } from "vitest";
import { browser, type Call, call, guestWithChat, routes, snapshot } from "./support/api";

const OWN = "http://localhost";
const rpc = {
  jsonrpc: "2.0",
  id: 1,
  method: "message/send",
  params: { message: { kind: "message", messageId: "m", role: "user", parts: [{ kind: "text", text: "hi" }] } },
};

/** Every route that writes, as a request template. */
function writes(sessionId: string, invocationId: string): [string, unknown, Call][] {
  const params = { id: sessionId };
  return [
    ["POST sessions", routes.sessions.POST, { method: "POST", body: { name: "Planted" } }],
    ["PATCH session", routes.session.PATCH, { method: "PATCH", params, body: { name: "Hijacked" } }],
    ["DELETE session", routes.session.DELETE, { method: "DELETE", params }],
    [
      "POST events",
      routes.events.POST,
      { method: "POST", params, body: { invocation_id: "x", author: "user", actions: { state_delta: { k: 1 } } } },
    ],
    ["POST rewind", routes.rewind.POST, { method: "POST", params, body: { rewind_before_invocation_id: invocationId } }],
    ["POST fork", routes.fork.POST, { method: "POST", params, body: {} }],
    ["POST artifact", routes.artifacts.POST, { method: "POST", params, body: { filename: "x.txt", text: "x" } }],
    ["A2A message/send", routes.a2a.POST, { method: "POST", params: { agent: "demo" }, body: rpc }],
  ];
}

describe("cross-site request forgery (docs/api.md § Requests)", () => {
  it("the cookie from another origin (another port, another site, an opaque origin) is a 403 everywhere and changes nothing", async () => {
    const alice = await guestWithChat();
    const before = await snapshot();
    const reads: [string, unknown, Call][] = [
      ["GET sessions", routes.sessions.GET, {}],
      ["GET events", routes.events.GET, { params: { id: alice.sessionId } }],
    ];
    for (const origin of ["http://localhost:3999", "http://evil.example", "null", "https://localhost"]) {
      for (const [name, route, request] of [...writes(alice.sessionId, alice.invocations[1]), ...reads]) {
        const { status, json } = await call(route, { ...request, headers: browser(alice.token, origin) });
        expect({ origin, name, status, json }).toEqual({
          origin,
          name,
          status: 403,
          json: { error: expect.any(String), code: "cross_origin" },
        });
      }
    }
    const guest = await call(routes.guest.POST, { method: "POST", headers: browser(alice.token, "http://localhost:3999") });
    expect({ status: guest.status, cookie: guest.headers.get("set-cookie") }).toEqual({ status: 403, cookie: null });
    expect(await snapshot()).toEqual(before);
  });

  it("JSON bodies need Content-Type: application/json (415), which a cross-site form or no-cors fetch cannot send", async () => {
    const alice = await guestWithChat();
    const before = await snapshot();
    for (const type of [
      "text/plain",
      "text/plain;charset=UTF-8",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "",
    ]) {
      for (const [name, route, request] of writes(alice.sessionId, alice.invocations[1]).filter(([name]) => !name.startsWith("DELETE"))) {
        const { status, json } = await call(route, { ...request, token: alice.token, headers: { "content-type": type } });
        expect({ type, name, status, code: json?.code }).toEqual({ type, name, status: 415, code: "unsupported_media_type" });
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  it("our own origin, a request without Origin, a proxy's forwarded host and Bearer clients from anywhere still work", async () => {
    const alice = await guestWithChat();
    const create = (headers: Record<string, string>, token?: string) =>
      call(routes.sessions.POST, {
        method: "POST",
        token,
        body: {},
        headers: { "content-type": "application/json; charset=utf-8", ...headers },
      });
    expect((await create(browser(alice.token, OWN))).status).toBe(201);
    expect((await create(browser(alice.token))).status).toBe(201);
    expect(
      (await create({ ...browser(alice.token, "https://chat.example"), "x-forwarded-host": "chat.example", "x-forwarded-proto": "https" }))
        .status,
    ).toBe(201);
    expect((await create({ origin: "http://evil.example" }, alice.token)).status).toBe(201);
    expect((await call(routes.guest.POST, { method: "POST", headers: { origin: OWN } })).status).toBe(201);
    expect((await call(routes.sessions.GET, { token: alice.token })).json.data).toHaveLength(5);
  });
});
