import { afterEach, describe, expect, it } from "vitest";
import * as account from "@/app/api/account/route";
import * as tokenRoute from "@/app/api/account/tokens/[id]/route";
import * as tokens from "@/app/api/account/tokens/route";
import { parseConfig } from "@/lib/config";
import { Browser, newCredentials } from "./support/accounts";
import { ownedBy, richGuest, rowsMentioning } from "./support/accounts-data";
import { call, guestWithChat, newGuest, routes, snapshot } from "./support/api";

async function signedUp() {
  const guest = await guestWithChat();
  const browser = new Browser(guest.token);
  const credentials = newCredentials();
  const up = await browser.auth("/sign-up/email", credentials);
  expect(up.status).toBe(200);
  return { browser, credentials, accountId: up.json.user.id as string, sessionId: guest.sessionId };
}

const env = (vars: Record<string, string>) => vars as unknown as NodeJS.ProcessEnv;

afterEach(() => {
  delete process.env.RETRACE_TRUSTED_USER_HEADER;
});

describe("personal API tokens", () => {
  it("are created while signed in, shown once, work as Bearer on REST and A2A, and stop at once when revoked", async () => {
    const { browser, accountId, sessionId } = await signedUp();
    const created = await browser.api(tokens.POST, { method: "POST", body: { name: "CI", expires_in_days: 30 } });
    expect(created.status).toBe(201);
    const { token, id } = created.json.data;
    expect(token).toMatch(/^rtk_/);
    const listed = await browser.api(tokens.GET);
    expect(listed.json.data).toEqual([expect.objectContaining({ id, name: "CI", prefix: token.slice(0, 10), last_used_at: null })]);
    expect(JSON.stringify(listed.json)).not.toContain(token);

    const me = await call(account.GET, { token });
    expect(me.json.data).toMatchObject({ user_id: accountId, kind: "token" });
    expect((await call(routes.sessions.GET, { token })).json.data.map((s: { id: string }) => s.id)).toEqual([sessionId]);
    const message = {
      kind: "message",
      messageId: crypto.randomUUID(),
      role: "user",
      parts: [{ kind: "text", text: "what is color?" }],
      contextId: sessionId,
    };
    const a2a = await call(routes.a2a.POST, {
      method: "POST",
      token,
      params: { agent: "demo" },
      body: { jsonrpc: "2.0", id: 1, method: "message/send", params: { message } },
    });
    expect(a2a.json.result.status.state).toBe("completed");
    expect((await browser.api(tokens.GET)).json.data[0].last_used_at).not.toBeNull();

    // A token cannot mint another, nor delete the account.
    expect((await call(tokens.POST, { method: "POST", token, body: { name: "more" } })).status).toBe(403);
    expect((await call(account.DELETE, { method: "DELETE", token, body: { email: "x" } })).status).toBe(403);

    expect((await browser.api(tokenRoute.DELETE, { method: "DELETE", params: { id } })).status).toBe(200);
    expect((await call(routes.sessions.GET, { token })).status).toBe(401);
  });

  it("another account's token is a 404 to revoke; a guest cannot create one; bad input changes nothing", async () => {
    const alice = await signedUp();
    const bob = await signedUp();
    const { json } = await alice.browser.api(tokens.POST, { method: "POST", body: { name: "alice" } });
    expect((await bob.browser.api(tokenRoute.DELETE, { method: "DELETE", params: { id: json.data.id } })).status).toBe(404);
    expect((await call(routes.sessions.GET, { token: json.data.token })).status).toBe(200);
    const guest = await newGuest();
    expect((await call(tokens.POST, { method: "POST", token: guest.token, body: { name: "x" } })).json.code).toBe("account_required");
    const before = await snapshot();
    for (const body of [{}, { name: "" }, { name: "x", expires_in_days: 0 }, { name: "x", extra: 1 }]) {
      expect((await alice.browser.api(tokens.POST, { method: "POST", body })).status).toBe(400);
    }
    expect((await call(routes.sessions.GET, { token: "rtk_forged" })).status).toBe(401);
    expect(await snapshot()).toEqual(before);
  });
});

describe("deleting an account", () => {
  it("deletes every row it owns (chats, turns, files, state, tokens, devices, passwords) and nothing else", async () => {
    const bystander = await richGuest("red");
    const theirs = await ownedBy(bystander.user_id);
    const guest = await richGuest();
    const browser = new Browser(guest.token);
    const credentials = newCredentials();
    const accountId = (await browser.auth("/sign-up/email", credentials)).json.user.id as string;
    await browser.api(tokens.POST, { method: "POST", body: { name: "CI" } });
    expect(Object.keys(await rowsMentioning(accountId)).length).toBeGreaterThan(5);

    const wrong = await browser.api(account.DELETE, { method: "DELETE", body: { email: "someone@else.com" } });
    expect(wrong.json.code).toBe("confirmation_mismatch");
    const deleted = await browser.api(account.DELETE, { method: "DELETE", body: { email: credentials.email } });
    expect(deleted.status).toBe(200);
    expect(await rowsMentioning(accountId)).toEqual({});
    expect(await ownedBy(bystander.user_id)).toEqual(theirs);
    expect(browser.cookies.size).toBe(0);
    expect((await new Browser().auth("/sign-in/email", { email: credentials.email, password: credentials.password })).status).toBe(401);
  });
});

describe("a trusted proxy's header (RETRACE_TRUSTED_USER_HEADER)", () => {
  it("is ignored unless the operator enables it", async () => {
    const guest = await newGuest();
    const headers = { "x-forwarded-email": "mallory@corp.example" };
    expect((await call(account.GET, { headers })).status).toBe(401);
    expect((await call(account.GET, { token: guest.token, headers })).json.data).toMatchObject({ user_id: guest.user_id, kind: "guest" });
  });

  it("when enabled, names the account (created on first sight) and keeps the Origin rule", async () => {
    process.env.RETRACE_TRUSTED_USER_HEADER = "X-Forwarded-Email";
    const headers = { "x-forwarded-email": "Dana@Corp.example" };
    const first = await call(account.GET, { headers });
    expect(first.json.data).toMatchObject({ kind: "proxy", email: "dana@corp.example", name: "Dana@Corp.example" });
    const created = await call(routes.sessions.POST, { method: "POST", headers, body: { name: "via proxy" } });
    expect(created.status).toBe(201);
    expect((await call(account.GET, { headers })).json.data.user_id).toBe(first.json.data.user_id);
    const foreign = await call(routes.sessions.POST, { method: "POST", headers: { ...headers, origin: "http://evil.example" }, body: {} });
    expect(foreign.json.code).toBe("cross_origin");
  });

  it("behind it, a Bearer that is not Retrace's (oauth2-proxy's ID token, which kagent's UI forwards) leaves the header to name the user", async () => {
    const idToken = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJkYW5hIn0.c2lnbmVkIGJ5IHRoZSBJZFA";
    const headers = { authorization: `Bearer ${idToken}`, "x-forwarded-email": "dana@corp.example" };
    expect((await call(account.GET, { headers })).status).toBe(401);
    process.env.RETRACE_TRUSTED_USER_HEADER = "X-Forwarded-Email";
    expect((await call(account.GET, { headers })).json.data).toMatchObject({ kind: "proxy", email: "dana@corp.example" });
    // Retrace's own Bearer still names its user first; a foreign one alone is still no one.
    const guest = await newGuest();
    const own = await call(account.GET, { headers: { ...headers, authorization: `Bearer ${guest.token}` } });
    expect(own.json.data).toMatchObject({ kind: "guest", user_id: guest.user_id });
    expect((await call(account.GET, { headers: { authorization: headers.authorization } })).status).toBe(401);
  });

  it("refuses header names a client controls, and OIDC settings given in part", () => {
    expect(() => parseConfig(env({ RETRACE_TRUSTED_USER_HEADER: "Cookie" }))).toThrow(/RETRACE_TRUSTED_USER_HEADER/);
    expect(() => parseConfig(env({ RETRACE_TRUSTED_USER_HEADER: "bad header" }))).toThrow(/RETRACE_TRUSTED_USER_HEADER/);
    expect(() => parseConfig(env({ RETRACE_OIDC_ISSUER: "https://idp.example" }))).toThrow(/RETRACE_OIDC_CLIENT_ID/);
    expect(() => parseConfig(env({ RETRACE_SIGNUP: "sometimes" }))).toThrow(/RETRACE_SIGNUP/);
    expect(parseConfig(env({ RETRACE_TRUSTED_USER_HEADER: "X-Auth-Request-Email" })).accounts.trustedUserHeader).toBe(
      "x-auth-request-email",
    );
  });
});
