import type { IncomingHttpHeaders } from "node:http";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import * as account from "@/app/api/account/route";
import { stampPeer } from "@/lib/accounts/client-address";
import { getDb } from "@/lib/db/connection";
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

  it("a signed-in account adds a passkey and then signs in with it; a taken address is refused after the ceremony, closed sign-up before it", async () => {
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
    // Refused when the account would be made: the options read the same for a taken address (see below).
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

  it("options tell nothing about an address and write nothing: the same answer for a taken and a free one, no row for 300 calls, 10 a minute per address", async () => {
    const taken = newCredentials();
    expect((await new Browser().auth("/sign-up/email", taken)).status).toBe(200);
    const options = (email: string, address: string) => {
      const headers: IncomingHttpHeaders = {};
      stampPeer(headers, address);
      const context = encodeURIComponent(JSON.stringify({ name: "Someone", email }));
      return new Browser(undefined, undefined, headers as Record<string, string>).auth(
        `/passkey/generate-register-options?context=${context}`,
      );
    };
    const shape = (answer: { status: number; json: Record<string, unknown> }) => ({
      status: answer.status,
      keys: Object.keys(answer.json).sort(),
      user: Object.keys(answer.json.user as object).sort(),
      excluded: answer.json.excludeCredentials,
    });
    const before = await snapshot();
    const forTaken = await options(taken.email, "192.0.2.1");
    const forFree = await options(newCredentials().email, "192.0.2.1");
    expect(shape(forTaken)).toEqual(shape(forFree));
    expect(forTaken.status).toBe(200);
    const statuses = new Set<number>();
    for (let i = 0; i < 300; i++) statuses.add((await options(`free${i}@example.com`, `198.51.100.${Math.floor(i / 10)}`)).status);
    expect([...statuses]).toEqual([200]);
    expect(await snapshot()).toEqual(before);
    const limited: number[] = [];
    for (let i = 0; i < 11; i++) limited.push((await options(`again${i}@example.com`, "192.0.2.2")).status);
    expect(limited).toEqual([...Array(10).fill(200), 429]);
    const rows = await (await getDb()).one<{ n: number }>(sql`SELECT COUNT(*) AS n FROM auth_verifications`);
    expect(Number(rows?.n)).toBe(0);
  }, 60_000);

  it("a passkey's name and reported transports have limits; a sign-up refused for its guest writes nothing", async () => {
    const browser = new Browser();
    expect((await browser.auth("/sign-up/email", newCredentials())).status).toBe(200);
    const authenticator = new SoftwareAuthenticator();
    const before = await snapshot();
    for (const body of [{ name: "P".repeat(101) }, { name: "Phone", transports: Array.from({ length: 50 }, () => "internal") }]) {
      const options = await browser.auth("/passkey/generate-register-options");
      const response = authenticator.register(options.json);
      if (body.transports) response.response.transports = body.transports;
      const refused = await browser.auth("/passkey/verify-registration", { response, name: body.name });
      expect({ status: refused.status, code: refused.json.code }).toEqual({ status: 400, code: "FIELD_TOO_LONG" });
    }
    expect(await snapshot()).toEqual(before);

    const guest = await richGuest();
    await (await getDb()).run(
      sql`UPDATE sessions SET turn_task_id = 'running', turn_lease_until = ${Date.now() + 60_000} WHERE id = ${guest.sessionId}`,
    );
    const busy = await snapshot();
    const refused = await signUpWithPasskey(new Browser(guest.token), new SoftwareAuthenticator());
    expect({ status: refused.status, code: refused.json.code }).toEqual({ status: 409, code: "SESSION_BUSY" });
    expect(await snapshot()).toEqual(busy);
  });
});
