import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as account from "@/app/api/account/route";
import { Browser, newCredentials } from "./support/accounts";
import { ownedBy, richGuest, rowsMentioning } from "./support/accounts-data";
import { snapshot } from "./support/api";
import { type Idp, startIdp } from "./support/oidc-idp";

/** Single sign-on against a real OpenID Connect provider (`oidc-provider`) the test starts on a free port. */
let idp: Idp;

beforeAll(async () => {
  idp = await startIdp(["http://localhost/api/auth/callback/oidc"]);
  process.env.RETRACE_OIDC_ISSUER = idp.issuer;
  process.env.RETRACE_OIDC_CLIENT_ID = idp.clientId;
  process.env.RETRACE_OIDC_CLIENT_SECRET = idp.clientSecret;
  process.env.RETRACE_OIDC_NAME = "Acme SSO";
});

afterAll(async () => {
  for (const name of ["RETRACE_OIDC_ISSUER", "RETRACE_OIDC_CLIENT_ID", "RETRACE_OIDC_CLIENT_SECRET", "RETRACE_OIDC_NAME"])
    delete process.env[name];
  await idp.stop();
});

afterEach(() => {
  delete process.env.RETRACE_SIGNUP;
});

/** The whole redirect dance: the app's sign-in answer → the IdP → the app's callback; resolves with where the browser lands. */
async function signInWithSso(browser: Browser, user = { sub: crypto.randomUUID(), email: newCredentials().email, name: "Kay" }) {
  idp.loginAs(user);
  const start = await browser.auth("/sign-in/social", {
    provider: "oidc",
    callbackURL: "/chats-here",
    errorCallbackURL: "/?signin=failed",
  });
  expect(start.status).toBe(200);
  const callback = new URL(await idp.authorize(start.json.url));
  expect(callback.pathname).toBe("/api/auth/callback/oidc");
  const landed = await browser.auth(`/callback/oidc${callback.search}`);
  return { user, status: landed.status, location: landed.headers.get("location") ?? "" };
}

describe("OpenID Connect single sign-on", () => {
  it("the sign-in dialog learns the IdP's name from GET /api/account", async () => {
    const guest = new Browser();
    const me = await guest.api(account.GET, { headers: { authorization: `Bearer ${(await richGuest()).token}` } });
    expect(me.json.data.sign_in.oidc).toEqual({ provider: "oidc", name: "Acme SSO" });
  });

  it("a guest signing in through the IdP becomes an account with every row it had; nothing is left; a bystander is untouched", async () => {
    const bystander = await richGuest("red");
    const theirs = await ownedBy(bystander.user_id);
    const guest = await richGuest();
    const sessionsBefore = await new Browser(guest.token).sessions();
    const browser = new Browser(guest.token);
    const { user, status, location } = await signInWithSso(browser);
    expect({ status, location }).toEqual({ status: 302, location: "/chats-here" });
    const me = await browser.api(account.GET);
    expect(me.json.data).toMatchObject({ kind: "account", email: user.email, name: user.name });
    expect(await browser.sessions()).toEqual(sessionsBefore);
    expect(await rowsMentioning(guest.user_id)).toEqual({});
    expect(await ownedBy(bystander.user_id)).toEqual(theirs);

    // Later, on another device, the same IdP user reaches the same account and its chats.
    const phone = new Browser((await richGuest("green")).token);
    const again = await signInWithSso(phone, user);
    expect(again.status).toBe(302);
    expect((await phone.api(account.GET)).json.data.user_id).toBe(me.json.data.user_id);
    expect(await phone.sessions()).toEqual(expect.arrayContaining(sessionsBefore));
  });

  it("an IdP email that a password account already has is not linked to it (no pre-registered takeover)", async () => {
    const credentials = newCredentials();
    expect((await new Browser().auth("/sign-up/email", credentials)).status).toBe(200);
    const before = await snapshot();
    const { status, location } = await signInWithSso(new Browser(), { sub: crypto.randomUUID(), email: credentials.email, name: "Eve" });
    expect(status).toBe(302);
    expect(location).toMatch(/signin=failed.*error=/);
    expect(await snapshot()).toEqual(before);
  });

  it("RETRACE_SIGNUP=closed: a new IdP user gets no account, and sees why", async () => {
    process.env.RETRACE_SIGNUP = "closed";
    const before = await snapshot();
    const { status, location } = await signInWithSso(new Browser());
    expect(status).toBe(302);
    expect(location).toMatch(/signin=failed.*error=/);
    expect(await snapshot()).toEqual(before);
  });
});
