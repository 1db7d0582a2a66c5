import { decodeJwt, SignJWT } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { TOKEN_LIFETIME_SECONDS } from "@/lib/accounts/guest-token";
import { browser, type Call, call, guestWithChat, newGuest, routes, snapshot } from "./support/api";

const DAY = 24 * 60 * 60 * 1000;

/** Sets the clock to `days` after the test started (Date only: timers and promises keep running). */
function daysLater(days: number) {
  vi.useRealTimers();
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + days * DAY });
}

afterEach(() => {
  vi.useRealTimers();
});

describe("guest tokens (docs/api.md § Authentication): 30-day expiry, sliding renewal, cookie flags", () => {
  it("the cookie is HttpOnly, SameSite=Lax, lives 30 days, and is Secure only behind HTTPS", async () => {
    const plain = await call(routes.guest.POST, { method: "POST" });
    const cookie = plain.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^retrace_token=[\w-]+\.[\w-]+\.[\w-]+; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax$/);
    const { iat, exp } = decodeJwt(plain.json.data.token);
    expect(exp! - iat!).toBe(TOKEN_LIFETIME_SECONDS);
    expect(TOKEN_LIFETIME_SECONDS).toBe(30 * 24 * 60 * 60);

    const direct = new Request("https://retrace.example/api/auth/guest", { method: "POST" });
    expect((await routes.guest.POST(direct)).headers.get("set-cookie")).toMatch(/; Secure$/);
    const proxied = await call(routes.guest.POST, { method: "POST", headers: { "x-forwarded-proto": "https" } });
    expect(proxied.headers.get("set-cookie")).toMatch(/; Secure$/);
  });

  it("a token used in the second half of its life is renewed (cookie, or X-Retrace-Token for Bearer); a fresh one is not", async () => {
    const alice = await newGuest();
    const list = () => call(routes.sessions.GET, { headers: browser(alice.token) });
    daysLater(10);
    expect((await list()).headers.get("set-cookie")).toBeNull();
    expect((await call(routes.sessions.GET, { token: alice.token })).headers.get("x-retrace-token")).toBeNull();
    daysLater(16);
    const renewed = await list();
    expect(renewed.status).toBe(200);
    const token = renewed.headers
      .get("set-cookie")
      ?.match(/^retrace_token=([^;]+); Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax$/)?.[1];
    expect(decodeJwt(token!)).toMatchObject({ sub: alice.user_id, iat: Math.floor(Date.now() / 1000) });
    // Bearer clients get theirs in a header instead.
    const bearer = await call(routes.sessions.GET, { token: alice.token });
    expect(bearer.headers.get("set-cookie")).toBeNull();
    expect(decodeJwt(bearer.headers.get("x-retrace-token")!)).toMatchObject({ sub: alice.user_id, iat: Math.floor(Date.now() / 1000) });
    // An A2A-only client is renewed too.
    const a2a = await call(routes.a2a.POST, {
      method: "POST",
      token: alice.token,
      params: { agent: "demo" },
      body: { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "none" } },
    });
    expect(decodeJwt(a2a.headers.get("x-retrace-token")!)).toMatchObject({ sub: alice.user_id });
    // The renewed token outlives the original one.
    daysLater(40);
    expect((await call(routes.sessions.GET, { headers: browser(token!) })).status).toBe(200);
    expect((await list()).status).toBe(401);
  });

  it("an expired token is a 401 by cookie and by Bearer, and so is a token without expiry older than 30 days", async () => {
    const alice = await guestWithChat();
    const legacy = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(alice.user_id)
      .setIssuedAt()
      .sign(new TextEncoder().encode(process.env.AUTH_SECRET));
    expect((await call(routes.sessions.GET, { token: legacy })).status).toBe(200);
    const before = await snapshot();
    daysLater(30.001);
    for (const request of [{ token: alice.token }, { headers: browser(alice.token) }, { token: legacy }] as Call[]) {
      for (const [route, extra] of [
        [routes.sessions.GET, {}],
        [routes.session.GET, { params: { id: alice.sessionId } }],
        [routes.events.POST, { method: "POST", params: { id: alice.sessionId }, body: { invocation_id: "x", author: "user" } }],
      ] as [unknown, Call][]) {
        const { status, json } = await call(route, { ...request, ...extra });
        expect({ status, code: json?.code }).toEqual({ status: 401, code: "unauthorized" });
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  it("a malformed token cookie (bad %-encoding, garbage) is a 401 on every /api route, never a 500", async () => {
    const alice = await guestWithChat();
    const params = { id: alice.sessionId };
    const requests: [string, unknown, Call][] = [
      ["GET agents", routes.agents.GET, {}],
      ["GET sessions", routes.sessions.GET, {}],
      ["POST sessions", routes.sessions.POST, { method: "POST", body: {} }],
      ["GET session", routes.session.GET, { params }],
      ["PATCH session", routes.session.PATCH, { method: "PATCH", params, body: { name: "x" } }],
      ["DELETE session", routes.session.DELETE, { method: "DELETE", params }],
      ["GET events", routes.events.GET, { params }],
      ["POST events", routes.events.POST, { method: "POST", params, body: { invocation_id: "x", author: "user" } }],
      ["GET tasks", routes.tasks.GET, { params }],
      ["POST rewind", routes.rewind.POST, { method: "POST", params, body: { rewind_before_invocation_id: alice.invocations[0] } }],
      ["POST fork", routes.fork.POST, { method: "POST", params, body: {} }],
      ["GET artifacts", routes.artifacts.GET, { params }],
      ["POST artifact", routes.artifacts.POST, { method: "POST", params, body: { filename: "x.txt", text: "x" } }],
      ["GET artifact", routes.artifactFile.GET, { params: { ...params, filename: "notes.txt" }, path: "/x?version=0" }],
      [
        "A2A",
        routes.a2a.POST,
        { method: "POST", params: { agent: "demo" }, body: { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "x" } } },
      ],
    ];
    const before = await snapshot();
    for (const cookie of [
      "retrace_token=%E0%A4%A",
      "retrace_token=%",
      "retrace_token=%ZZ; other=1",
      "retrace_token=a.b.c",
      "retrace_token=",
    ]) {
      for (const [name, route, request] of requests) {
        const { status, json } = await call(route, { ...request, headers: { cookie } });
        expect({ cookie, name, status, code: json?.code }).toEqual({ cookie, name, status: 401, code: "unauthorized" });
      }
    }
    expect(await snapshot()).toEqual(before);
  });
});
