import { afterEach, describe, expect, it } from "vitest";
import { passwordProblem } from "@/lib/accounts/policy";
import { Browser, newCredentials } from "./support/accounts";
import { call, newGuest, routes, snapshot } from "./support/api";

const invites = async (body: unknown, token = "operator-token-of-16+chars") => {
  const route = await import("@/app/api/admin/invites/route");
  return call(route.POST, { method: "POST", token, body });
};

afterEach(() => {
  delete process.env.RETRACE_SIGNUP;
  delete process.env.RETRACE_ADMIN_TOKEN;
});

describe("email and password", () => {
  it("a weak password is refused with a reason a person can act on, and nothing is written", async () => {
    expect(passwordProblem("short")).toMatch(/at least 10/);
    expect(passwordProblem("aaaaaaaaaaaa")).toMatch(/different characters/);
    expect(passwordProblem("mypassword2024")).toMatch(/common words/);
    expect(passwordProblem("adalovelace-1815", { email: "adalovelace@example.com" })).toMatch(/name or email/);
    expect(passwordProblem("correct horse battery staple")).toBeNull();
    const guest = await newGuest();
    const before = await snapshot();
    for (const password of ["short", "password12345", "zzzzzzzzzzzzzz"]) {
      const { status, json } = await new Browser(guest.token).auth("/sign-up/email", { ...newCredentials(), password });
      expect(status).toBe(400);
      expect(json.message).toMatch(/password/i);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("a wrong password is a 401; the sixth try within a minute from one address is a 429", async () => {
    const credentials = newCredentials();
    expect((await new Browser().auth("/sign-up/email", credentials)).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await new Browser().auth("/sign-in/email", { email: credentials.email, password: "wrong password here" })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    // The right password is refused too until the minute is over: the limit is per client address and path.
    expect((await new Browser().auth("/sign-in/email", { email: credentials.email, password: credentials.password })).status).toBe(429);
  });

  it("an address has one account: signing up again with it is refused", async () => {
    const credentials = newCredentials();
    expect((await new Browser().auth("/sign-up/email", credentials)).status).toBe(200);
    const again = await new Browser().auth("/sign-up/email", { ...credentials, name: "Someone else" });
    expect(again.status).toBe(422);
  });

  it("devices: each sign-in is listed; signing out the others ends their sessions, this one stays", async () => {
    const credentials = newCredentials();
    const laptop = new Browser();
    expect((await laptop.auth("/sign-up/email", credentials)).status).toBe(200);
    const phone = new Browser();
    expect((await phone.auth("/sign-in/email", { email: credentials.email, password: credentials.password })).status).toBe(200);
    const listed = await laptop.auth("/list-sessions");
    expect(listed.json).toHaveLength(2);
    expect((await laptop.auth("/revoke-other-sessions", {})).status).toBe(200);
    expect((await laptop.auth("/list-sessions")).json).toHaveLength(1);
    expect((await laptop.api(routes.sessions.GET)).status).toBe(200);
    // The phone's signed cache lets it in until it expires (a minute); then the database says no.
    const check = await phone.auth("/get-session?disableCookieCache=true");
    expect(check.json).toBeNull();
  });

  it("RETRACE_SIGNUP=closed refuses new accounts; existing ones still sign in", async () => {
    const credentials = newCredentials();
    expect((await new Browser().auth("/sign-up/email", credentials)).status).toBe(200);
    process.env.RETRACE_SIGNUP = "closed";
    const before = await snapshot();
    const refused = await new Browser().auth("/sign-up/email", newCredentials());
    expect({ status: refused.status, code: refused.json.code }).toEqual({ status: 403, code: "SIGNUP_CLOSED" });
    expect(await snapshot()).toEqual(before);
    expect((await new Browser().auth("/sign-in/email", { email: credentials.email, password: credentials.password })).status).toBe(200);
  });

  it("RETRACE_SIGNUP=invite: only an invited address signs up, once; the operator invites", async () => {
    process.env.RETRACE_SIGNUP = "invite";
    process.env.RETRACE_ADMIN_TOKEN = "operator-token-of-16+chars";
    const credentials = newCredentials();
    const refused = await new Browser().auth("/sign-up/email", credentials);
    expect({ status: refused.status, code: refused.json.code }).toEqual({ status: 403, code: "NOT_INVITED" });
    expect((await invites({ email: credentials.email }, "a user's token, not the operator's")).status).toBe(401);
    expect((await invites({ email: "not an address" })).status).toBe(400);
    const invited = await invites({ email: credentials.email.toUpperCase() });
    expect(invited.status).toBe(201);
    expect(invited.json.data.email).toBe(credentials.email);
    expect((await new Browser().auth("/sign-up/email", credentials)).status).toBe(200);
    const second = await new Browser().auth("/sign-up/email", { ...newCredentials(), email: credentials.email });
    expect(second.status).toBe(422);
  });

  it("better-auth's routes keep the Origin rule: a foreign page cannot sign a browser in or out", async () => {
    const credentials = newCredentials();
    const route = await import("@/app/api/auth/[...all]/route");
    const request = new Request("http://localhost/api/auth/sign-up/email", {
      method: "POST",
      headers: { origin: "http://localhost:4000", "content-type": "application/json" },
      body: JSON.stringify(credentials),
    });
    const before = await snapshot();
    const response = await route.POST(request);
    expect({ status: response.status, code: (await response.json()).code }).toEqual({ status: 403, code: "cross_origin" });
    expect(await snapshot()).toEqual(before);
  });
});
