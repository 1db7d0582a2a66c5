/**
 * better-auth's routes under the API's request rules (issue 37: items 4, 7, 8 and 13): bodies capped as they
 * stream in, the text rule and the profile limits, rate limits by the connection's address (or a trusted
 * proxy's word), and session cookies whose security follows the request's scheme.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import * as account from "@/app/api/account/route";
import * as authRoute from "@/app/api/auth/[...all]/route";
import { stampPeer, watchPeers } from "@/lib/accounts/client-address";
import { Browser, newCredentials } from "./support/accounts";
import { newGuest, snapshot } from "./support/api";
import { STALL_LIMIT_MS, withProbe } from "./support/stall";

const ORIGIN = "http://localhost";

/** Headers of a request that arrived over a connection from `address` (what each instance stamps as it arrives). */
function from(address: string, more: Record<string, string> = {}): Record<string, string> {
  const headers: IncomingHttpHeaders = {};
  stampPeer(headers, address);
  return { ...(headers as Record<string, string>), ...more };
}

const wrongPassword = { email: "nobody@example.com", password: "not the password at all" };

/** A browser on a connection of its own (sign-ups are rate-limited per address). */
let hosts = 0;
const elsewhere = (guestToken?: string) =>
  new Browser(guestToken, ORIGIN, from(`198.18.${Math.floor(++hosts / 250)}.${(hosts % 250) + 1}`));

afterEach(() => {
  delete process.env.RETRACE_TRUSTED_PROXIES;
});

describe("bodies: capped as they stream in (item 4)", () => {
  it("a chunked body without Content-Length is a 413 once it passes 10 MiB; the rest is never read and nothing is written", async () => {
    let pulled = 0;
    const mebibyte = new Uint8Array(1024 * 1024).fill(0x61);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(mebibyte);
        if (pulled === 200) controller.close();
      },
    });
    // Another user's reads go on meanwhile (the stall check): its rows aside, nothing is written.
    const accounts = async () => Object.entries(await snapshot()).filter(([table]) => table.startsWith("auth_"));
    const before = await accounts();
    const { result: response, worstMs } = await withProbe(() =>
      authRoute.POST(
        new Request(`${ORIGIN}/api/auth/sign-in/email`, {
          method: "POST",
          body,
          duplex: "half",
          headers: { "content-type": "application/json", origin: ORIGIN },
        } as RequestInit),
      ),
    );
    expect({ status: response.status, code: (await response.json()).code }).toEqual({ status: 413, code: "payload_too_large" });
    expect(pulled).toBeLessThanOrEqual(12);
    expect(worstMs).toBeLessThan(STALL_LIMIT_MS);
    expect(await accounts()).toEqual(before);
    const declared = await authRoute.POST(
      new Request(`${ORIGIN}/api/auth/sign-up/email`, {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": String(200 * 1024 * 1024), origin: ORIGIN },
      }),
    );
    expect(declared.status).toBe(413);
    expect(await accounts()).toEqual(before);
  });
});

describe("text and size rules on what an account stores (item 8)", () => {
  it("NUL or a lone surrogate in a body or query is 400 invalid_text, a body that is not JSON is 415: nothing is written", async () => {
    const guest = await newGuest();
    const browser = new Browser(guest.token);
    const before = await snapshot();
    for (const name of ["Ada\u0000Lovelace", "Ada \ud800"]) {
      const refused = await browser.auth("/sign-up/email", { ...newCredentials(), name });
      expect({ status: refused.status, code: refused.json.code }).toEqual({ status: 400, code: "invalid_text" });
    }
    const context = encodeURIComponent(JSON.stringify({ name: "Ada\u0000", email: "ada@example.com" }));
    const query = await browser.auth(`/passkey/generate-register-options?context=${context}`);
    expect({ status: query.status, code: query.json.code }).toEqual({ status: 400, code: "invalid_text" });
    const form = await authRoute.POST(
      new Request(`${ORIGIN}/api/auth/sign-up/email`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: ORIGIN, cookie: browser.header() },
        body: new URLSearchParams({ ...newCredentials(), name: "Ada\u0000" }),
      }),
    );
    expect(form.status).toBe(415);
    expect(await snapshot()).toEqual(before);
  });

  it("a name over 100 characters (5 MB too), an email over 254, a picture URL over 2,048: 400 FIELD_TOO_LONG on sign-up and on update", async () => {
    const before = await snapshot();
    for (const fields of [
      { name: "A".repeat(101) },
      { name: "A".repeat(5_000_000) },
      { email: `${"a".repeat(1_000_000)}@example.com` },
      { email: `${"a".repeat(243)}@example.com` },
      { image: `https://example.com/${"a".repeat(2048)}` },
    ]) {
      const refused = await elsewhere().auth("/sign-up/email", { ...newCredentials(), ...fields });
      expect({ status: refused.status, code: refused.json.code }).toEqual({ status: 400, code: "FIELD_TOO_LONG" });
    }
    expect(await snapshot()).toEqual(before);

    const browser = elsewhere();
    const longest = { ...newCredentials("B".repeat(100)), email: `${"b".repeat(242)}@example.com` };
    expect((await browser.auth("/sign-up/email", longest)).status).toBe(200);
    const signedUp = await snapshot();
    const renamed = await browser.auth("/update-user", { name: "C".repeat(101) });
    expect({ status: renamed.status, code: renamed.json.code }).toEqual({ status: 400, code: "FIELD_TOO_LONG" });
    const nul = await browser.auth("/update-user", { name: "C\u0000" });
    expect({ status: nul.status, code: nul.json.code }).toEqual({ status: 400, code: "invalid_text" });
    expect(await snapshot()).toEqual(signedUp);
    expect((await browser.auth("/update-user", { name: "Grace" })).status).toBe(200);
    expect((await browser.api(account.GET)).json.data.name).toBe("Grace");
  });
});

describe("rate limits count the connection's address, never a client's own X-Forwarded-For (item 7)", () => {
  it("30 wrong passwords over one connection with 30 different X-Forwarded-For values: 429 from the sixth on; another address is counted apart", {
    timeout: 60_000,
  }, async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const browser = new Browser(undefined, ORIGIN, from("192.0.2.7", { "x-forwarded-for": `203.0.113.${i + 1}` }));
      statuses.push((await browser.auth("/sign-in/email", wrongPassword)).status);
    }
    expect(statuses).toEqual([...Array(5).fill(401), ...Array(25).fill(429)]);
    expect((await new Browser(undefined, ORIGIN, from("192.0.2.8")).auth("/sign-in/email", wrongPassword)).status).toBe(401);
  });

  it("behind a proxy in RETRACE_TRUSTED_PROXIES, the address it forwarded is the client (read from the right); the device list shows it", {
    timeout: 60_000,
  }, async () => {
    process.env.RETRACE_TRUSTED_PROXIES = "10.0.0.0/8, 192.0.2.1";
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const browser = new Browser(undefined, ORIGIN, from("10.1.2.3", { "x-forwarded-for": `203.0.113.${i + 1}` }));
      statuses.push((await browser.auth("/sign-in/email", wrongPassword)).status);
    }
    expect(statuses).toEqual(Array(10).fill(401));
    // What a client wrote before the proxies' own entries counts for nothing, however it varies.
    const spoofing: number[] = [];
    for (let i = 0; i < 6; i++) {
      const chain = `198.51.100.${i + 1}, 203.0.113.200, 192.0.2.1`;
      const browser = new Browser(undefined, ORIGIN, from("10.1.2.3", { "x-forwarded-for": chain }));
      spoofing.push((await browser.auth("/sign-in/email", wrongPassword)).status);
    }
    expect(spoofing).toEqual([401, 401, 401, 401, 401, 429]);
    // A connection from outside the list is its own address, whatever it forwards.
    const direct = new Browser(undefined, ORIGIN, from("198.51.100.50", { "x-forwarded-for": "203.0.113.200" }));
    expect((await direct.auth("/sign-in/email", wrongPassword)).status).toBe(401);

    const device = new Browser(undefined, ORIGIN, from("10.1.2.3", { "x-forwarded-for": "203.0.113.77" }));
    expect((await device.auth("/sign-up/email", newCredentials())).status).toBe(200);
    expect((await device.auth("/list-sessions")).json).toEqual([expect.objectContaining({ ipAddress: "203.0.113.77" })]);
  });

  it("through a real HTTP server: each request is stamped with its socket's address; a client's own stamp or address header counts for nothing", {
    timeout: 60_000,
  }, async () => {
    watchPeers();
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
      const response = await authRoute.POST(
        new Request(`${ORIGIN}${req.url}`, { method: req.method, headers, body: Buffer.concat(chunks) }),
      );
      res.writeHead(response.status, { "content-type": "application/json" }).end(await response.text());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) {
        const forged = from(`198.51.100.${i + 1}`);
        const response = await fetch(`${origin}/api/auth/sign-in/email`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            origin,
            "x-forwarded-for": `203.0.113.${i + 1}`,
            "x-retrace-client-address": `203.0.113.${i + 1}`,
            ...forged,
          },
          body: JSON.stringify(wrongPassword),
        });
        statuses.push(response.status);
      }
      expect(statuses).toEqual([...Array(5).fill(401), ...Array(25).fill(429)]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("session cookies follow the request's scheme, as the guest cookie does (item 13)", () => {
  const sessionCookie = (headers: Headers) => headers.getSetCookie().find((c) => /session_token=/.test(c)) ?? "";

  it("over plain HTTP: neither __Secure- nor Secure; over HTTPS or behind a TLS proxy: both; either way the browser is signed in", async () => {
    const plain = new Browser((await newGuest()).token);
    const up = await plain.auth("/sign-up/email", newCredentials());
    expect(up.status).toBe(200);
    expect(sessionCookie(up.headers)).toMatch(/^retrace\.session_token=/);
    expect(sessionCookie(up.headers)).not.toMatch(/;\s*Secure/i);
    expect((await plain.api(account.GET)).json.data.kind).toBe("account");

    const tls = new Browser((await newGuest()).token, "https://localhost");
    const secure = await tls.auth("/sign-up/email", newCredentials());
    expect(secure.status).toBe(200);
    expect(sessionCookie(secure.headers)).toMatch(/^__Secure-retrace\.session_token=.*;\s*Secure/i);
    expect((await tls.api(account.GET, { headers: { "x-forwarded-proto": "https" } })).json.data.kind).toBe("account");

    const proxied = new Browser((await newGuest()).token, "https://localhost", { "x-forwarded-proto": "https" });
    const behindProxy = await authRoute.POST(
      new Request(`${ORIGIN}/api/auth/sign-up/email`, {
        method: "POST",
        headers: { ...proxied.extra, origin: "https://localhost", cookie: proxied.header(), "content-type": "application/json" },
        body: JSON.stringify(newCredentials()),
      }),
    );
    expect(behindProxy.status).toBe(200);
    expect(sessionCookie(behindProxy.headers)).toMatch(/^__Secure-retrace\.session_token=.*;\s*Secure/i);
    proxied.take(behindProxy);
    expect((await proxied.api(account.GET)).json.data.kind).toBe("account");
  });
});
