import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { refuseBadPagePost } from "@/lib/api/page-post";
import { getDb } from "@/lib/db/connection";
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from "@/lib/session/limits";
import { call, guestWithChat, newGuest, routes } from "./support/api";

const nested = (levels: number) => "[".repeat(levels) + "]".repeat(levels);

describe("limits (docs/api.md § Requests): what is just inside them still works", () => {
  it("JSON nested exactly 64 levels and 1,000 events in one append are accepted", async () => {
    const { token } = await newGuest();
    // {"state":{"k": …}} adds two levels of its own.
    const created = await call(routes.sessions.POST, { method: "POST", token, raw: `{"state":{"k":${nested(MAX_JSON_DEPTH - 2)}}}` });
    expect(created.status).toBe(201);
    const id = created.json.data.id;
    const events = Array.from({ length: 1000 }, (_, i) => ({ invocation_id: `i${i}`, author: "user" }));
    const appended = await call(routes.events.POST, { method: "POST", token, params: { id }, body: events });
    expect({ status: appended.status, count: appended.json.data.length }).toEqual({ status: 201, count: 1000 });
    // Brackets inside strings are text, not nesting.
    const text = await call(routes.events.POST, {
      method: "POST",
      token,
      params: { id },
      raw: `{"invocation_id":"s","author":"user","content":{"parts":[{"text":"${"[{".repeat(500)}\\"]"}]}}`,
    });
    expect(text.status).toBe(201);
  });

  it("a media type with parameters is kept; a bad one stored before saves were checked is served as bytes, not a 500", async () => {
    const alice = await guestWithChat();
    const params = { id: alice.sessionId };
    const saved = await call(routes.artifacts.POST, {
      method: "POST",
      token: alice.token,
      params,
      body: { filename: "page.html", mime_type: 'text/html; charset="utf-8"', text: "<b>hi</b>" },
    });
    expect(saved.status).toBe(201);
    const served = await call(routes.artifactFile.GET, { token: alice.token, params: { ...params, filename: "page.html" } });
    expect(served.headers.get("content-type")).toBe('text/html; charset="utf-8"');
    expect(served.headers.get("content-security-policy")).toBe("sandbox");

    await (await getDb()).run(sql`UPDATE artifacts SET mime_type = ${"text/html\r\nX-Evil: 1"} WHERE filename = 'page.html'`);
    const legacy = await call(routes.artifactFile.GET, {
      token: alice.token,
      params: { ...params, filename: "page.html" },
      path: "/x?version=0",
    });
    expect({ status: legacy.status, type: legacy.headers.get("content-type"), text: legacy.text }).toEqual({
      status: 200,
      type: "application/octet-stream",
      text: "<b>hi</b>",
    });
  });

  it("unknown /api paths answer a JSON 404 to HEAD too", async () => {
    const head = await call(routes.unknown.HEAD, { method: "HEAD", path: "/api/nope" });
    expect({ status: head.status, type: head.headers.get("content-type") }).toEqual({ status: 404, type: "application/json" });
  });
});

describe("server action bodies Next.js would answer with a 500 are refused in the proxy", () => {
  const action = (body: BodyInit, headers: Record<string, string> = {}) =>
    new Request("http://localhost/", {
      method: "POST",
      body,
      headers: { "next-action": "7f00", "content-type": "text/plain;charset=UTF-8", ...headers },
    });
  const multipart = (fields: Record<string, string>) => {
    const form = new FormData();
    for (const [key, value] of Object.entries(fields)) form.set(key, value);
    return new Request("http://localhost/", { method: "POST", body: form, headers: { "next-action": "7f00" } });
  };
  const verdict = async (request: Request) => {
    const response = await refuseBadPagePost(request);
    return response && { status: response.status, body: await response.json() };
  };

  it("lets well-formed action calls and ordinary requests through", async () => {
    expect(await verdict(action('[{"sessionId":"s","name":"n"}]'))).toBeNull();
    expect(await verdict(multipart({ "0": '["$K1"]', "1_name": "free text", "1_other": "{" }))).toBeNull();
    expect(await refuseBadPagePost(new Request("http://localhost/", { method: "GET" }))).toBeNull();
    expect(
      await refuseBadPagePost(
        new Request("http://localhost/", {
          method: "POST",
          body: "a=%%",
          headers: { "content-type": "application/x-www-form-urlencoded" },
        }),
      ),
    ).toBeNull();
  });

  it("refuses malformed, too deep and oversized bodies with a 4xx and {error, code}", async () => {
    const malformed = { status: 400, body: { error: expect.any(String), code: "invalid_request" } };
    expect(await verdict(action('[{"sessionId":'))).toEqual(malformed);
    expect(await verdict(action("zzz"))).toEqual(malformed);
    expect(await verdict(action(nested(100_000)))).toEqual(malformed);
    expect(await verdict(multipart({ "0": "[{" }))).toEqual(malformed);
    expect(await verdict(action("garbage", { "content-type": "multipart/form-data; boundary=xx" }))).toEqual(malformed);
    const form = new Request("http://localhost/", {
      method: "POST",
      body: "garbage",
      headers: { "content-type": "multipart/form-data; boundary=xx" },
    });
    expect(await verdict(form)).toEqual(malformed);

    const tooLarge = { status: 413, body: { error: expect.any(String), code: "payload_too_large" } };
    expect(await verdict(action(`["${"x".repeat(MAX_BODY_BYTES)}"]`))).toEqual(tooLarge);
    expect(await verdict(action("[]", { "content-length": String(MAX_BODY_BYTES + 1) }))).toEqual(tooLarge);
  });
});
