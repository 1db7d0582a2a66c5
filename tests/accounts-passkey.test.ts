import { afterEach, describe, expect, it } from "vitest";
import * as account from "@/app/api/account/route";
import { Browser, newCredentials } from "./support/accounts";
import { ownedBy, richGuest, rowsMentioning } from "./support/accounts-data";
import { snapshot } from "./support/api";
import { SoftwareAuthenticator } from "./support/software-authenticator";

/** Passkey-first sign-up: name and email as the registration's context, then the ceremony. */
async function signUpWithPasskey(browser: Browser, authenticator: SoftwareAuthenticator, who = newCredentials()) {
  const context = encodeURIComponent(JSON.stringify({ name: who.name, email: who.email }));
  const options = await browser.auth(`/passkey/generate-register-options?context=${context}&name=${encodeURIComponent(who.email)}`);
  if (options.status !== 200) return options;
  return browser.auth("/passkey/verify-registration", {
    response: authenticator.register(options.json),
    name: "Laptop",
    createSession: true,
  });
}

async function signInWithPasskey(browser: Browser, authenticator: SoftwareAuthenticator) {
  const options = await browser.auth("/passkey/generate-authenticate-options");
  expect(options.status).toBe(200);
  return browser.auth("/passkey/verify-authentication", { response: authenticator.authenticate(options.json) });
}

afterEach(() => {
  delete process.env.RETRACE_SIGNUP;
});

describe("passkeys", () => {
  it("signing up with a passkey moves every row of the guest to the new account; nothing is left; a bystander is untouched", async () => {
    const bystander = await richGuest("red");
    const theirs = await ownedBy(bystander.user_id);
    const guest = await richGuest();
    const before = await new Browser(guest.token).sessions();
    const browser = new Browser(guest.token);
    const who = newCredentials("Margaret Hamilton");
    const up = await signUpWithPasskey(browser, new SoftwareAuthenticator(), who);
    expect(up.status, JSON.stringify(up.json)).toBe(200);
    expect((await browser.api(account.GET)).json.data).toMatchObject({ kind: "account", email: who.email, name: who.name });
    expect(await browser.sessions()).toEqual(before);
    expect(await rowsMentioning(guest.user_id)).toEqual({});
    expect(await ownedBy(bystander.user_id)).toEqual(theirs);
  });

  it("signing in with the passkey elsewhere merges that browser's guest into the account", async () => {
    const authenticator = new SoftwareAuthenticator();
    const first = await richGuest("blue");
    const laptop = new Browser(first.token);
    expect((await signUpWithPasskey(laptop, authenticator)).status).toBe(200);
    const accountId = (await laptop.api(account.GET)).json.data.user_id;

    const second = await richGuest("green");
    const phone = new Browser(second.token);
    const signedIn = await signInWithPasskey(phone, authenticator);
    expect(signedIn.status, JSON.stringify(signedIn.json)).toBe(200);
    expect((await phone.api(account.GET)).json.data.user_id).toBe(accountId);
    expect(await rowsMentioning(second.user_id)).toEqual({});
    expect((await phone.sessions()).sort()).toEqual([...(await laptop.sessions())].sort());
    expect(await phone.sessions()).toEqual(expect.arrayContaining([first.sessionId, second.sessionId]));
  });

  it("a signed-in account adds a passkey and then signs in with it; a taken address or closed sign-up is refused before the ceremony", async () => {
    const credentials = newCredentials();
    const browser = new Browser();
    expect((await browser.auth("/sign-up/email", credentials)).status).toBe(200);
    const authenticator = new SoftwareAuthenticator();
    const options = await browser.auth("/passkey/generate-register-options");
    expect(options.status).toBe(200);
    const added = await browser.auth("/passkey/verify-registration", { response: authenticator.register(options.json), name: "Phone" });
    expect(added.status).toBe(200);
    expect((await browser.auth("/passkey/list-user-passkeys")).json).toEqual([expect.objectContaining({ name: "Phone" })]);
    const elsewhere = new Browser();
    expect((await signInWithPasskey(elsewhere, authenticator)).status).toBe(200);

    const before = await snapshot();
    const taken = await signUpWithPasskey(new Browser(), new SoftwareAuthenticator(), credentials);
    expect({ status: taken.status, code: taken.json.code }).toEqual({ status: 400, code: "EMAIL_TAKEN" });
    process.env.RETRACE_SIGNUP = "closed";
    const closed = await signUpWithPasskey(new Browser(), new SoftwareAuthenticator());
    expect({ status: closed.status, code: closed.json.code }).toEqual({ status: 403, code: "SIGNUP_CLOSED" });
    expect(await snapshot()).toEqual(before);
  });

  it("an unknown passkey or a forged guest token signs nobody in", async () => {
    const stranger = new SoftwareAuthenticator();
    stranger.register({ challenge: "x", user: { id: "nobody" } });
    const before = await snapshot();
    expect((await signInWithPasskey(new Browser(), stranger)).status).toBe(401);
    expect(await snapshot()).toEqual(before);
    const authenticator = new SoftwareAuthenticator();
    expect((await signUpWithPasskey(new Browser(), authenticator)).status).toBe(200);
    const afterSignUp = await snapshot();
    const forged = await signInWithPasskey(new Browser("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.forged"), authenticator);
    expect({ status: forged.status, code: forged.json.code }).toEqual({ status: 401, code: "INVALID_GUEST" });
    expect(await snapshot()).toEqual(afterSignUp);
  });
});
