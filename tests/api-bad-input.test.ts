import { describe, expect, it } from "vitest";
import { browser, type Call, call, guestWithChat, routes, snapshot } from "./support/api";

type Case = [name: string, route: unknown, request: Call, status: number, code: string | RegExp];

const deep = (levels: number) => "[".repeat(levels) + "]".repeat(levels);

/** Bad requests against a real chat: each gets a 4xx with {error, code} and writes nothing (docs/api.md, "Requests"). */
function catalogue(sessionId: string, token: string): Case[] {
  const params = { id: sessionId };
  const post = (route: unknown, body: unknown, status: number, code: string | RegExp, name: string): Case => [
    name,
    route,
    { method: "POST", params, body },
    status,
    code,
  ];
  const event = { invocation_id: "i-new", author: "user" };
  const big = "x".repeat(10 * 1024 * 1024 + 1);
  const file = (filename: string): Call => ({ method: "POST", params, body: { filename, text: "x" } });
  const typed = (mime_type: string): Call => ({ method: "POST", params, body: { filename: "t.txt", mime_type, text: "x" } });
  const version = (query: string): Call => ({ params: { ...params, filename: "notes.txt" }, path: `/x?${query}` });
  const as = (type: string, request: Call): Call => ({ ...request, headers: { "content-type": type } });
  const a2a = (text: string): Call => ({ method: "POST", params: { agent: "demo" }, raw: text });
  const message = { kind: "message", messageId: "m", role: "user", parts: [{ kind: "text", text: "hi" }] };
  return [
    ["malformed JSON (sessions)", routes.sessions.POST, { method: "POST", raw: "{nope" }, 400, "invalid_json"],
    ["malformed JSON (events)", routes.events.POST, { method: "POST", params, raw: "[{" }, 400, "invalid_json"],
    ["malformed JSON (rewind)", routes.rewind.POST, { method: "POST", params, raw: "" }, 400, "invalid_json"],
    post(routes.sessions.POST, { name: 5 }, 400, "invalid_request", "wrong type: name"),
    post(routes.sessions.POST, { state: [1, 2] }, 400, "invalid_request", "wrong type: state"),
    post(routes.sessions.POST, { agent: "nobody" }, 422, "invalid_reference", "unknown agent"),
    post(routes.sessions.POST, { surprise: true }, 400, "invalid_request", "unknown field"),
    ["empty name (rename)", routes.session.PATCH, { method: "PATCH", params, body: { name: "  " } }, 400, "invalid_request"],
    ["unknown session (get)", routes.session.GET, { params: { id: "no-such-session" } }, 404, "not_found"],
    [
      "unknown session (rewind)",
      routes.rewind.POST,
      { method: "POST", params: { id: "nope" }, body: { rewind_before_invocation_id: "x" } },
      404,
      "not_found",
    ],
    post(routes.rewind.POST, {}, 400, "invalid_request", "missing rewind_before_invocation_id"),
    post(routes.rewind.POST, { rewind_before_invocation_id: 7 }, 400, "invalid_request", "wrong type: invocation id"),
    post(routes.rewind.POST, { rewind_before_invocation_id: "e-ghost" }, 400, "invocation_not_found", "unknown invocation (rewind)"),
    post(routes.fork.POST, { rewind_before_invocation_id: "e-ghost" }, 400, "invocation_not_found", "unknown invocation (fork)"),
    post(routes.events.POST, [], 400, "invalid_request", "empty batch"),
    post(routes.events.POST, { author: "user" }, 400, "invalid_request", "event without invocation_id"),
    post(routes.events.POST, "just a string", 400, "invalid_request", "event that is not an object"),
    post(routes.events.POST, { id: "k", data: "{broken" }, 400, "invalid_request", "kagent envelope with bad JSON"),
    post(routes.events.POST, [event, { ...event, author: 3 }], 400, "invalid_request", "a batch with one bad event"),
    post(
      routes.events.POST,
      [event, { ...event, actions: { artifact_delta: { "notes.txt": 99 } } }],
      422,
      "invalid_reference",
      "artifact delta naming a missing version",
    ),
    post(
      routes.events.POST,
      { ...event, actions: { artifact_delta: { "never.txt": 0 } } },
      422,
      "invalid_reference",
      "artifact delta naming a missing file",
    ),
    post(routes.events.POST, { ...event, actions: { state_delta: "red" } }, 400, "invalid_request", "state_delta that is not an object"),
    post(routes.artifacts.POST, { filename: "../escape.txt", text: "x" }, 400, "invalid_request", "path traversal ../"),
    post(routes.artifacts.POST, { filename: "a/b.txt", text: "x" }, 400, "invalid_request", "path separator"),
    post(routes.artifacts.POST, { filename: "..", text: "x" }, 400, "invalid_request", "dot-dot filename"),
    post(routes.artifacts.POST, { filename: "a\\b", text: "x" }, 400, "invalid_request", "backslash filename"),
    post(routes.artifacts.POST, { filename: "nul\u0000.txt", text: "x" }, 400, "invalid_text", "control character filename"),
    post(routes.artifacts.POST, { filename: "x.bin", data_base64: "not base64!" }, 400, "invalid_request", "invalid base64"),
    post(routes.artifacts.POST, { filename: "x.bin", text: "a", data_base64: "YQ==" }, 400, "invalid_request", "both text and base64"),
    post(routes.artifacts.POST, { filename: "x.bin" }, 400, "invalid_request", "neither text nor base64"),
    [
      "bad version",
      routes.artifactFile.GET,
      { params: { ...params, filename: "notes.txt" }, path: "/x?version=-1" },
      400,
      "invalid_request",
    ],
    ["missing version", routes.artifactFile.GET, { params: { ...params, filename: "notes.txt" }, path: "/x?version=9" }, 404, "not_found"],
    ["bad view", routes.events.GET, { params, path: "/x?view=everything" }, 400, "invalid_request"],
    [
      "oversized body, truthful length",
      routes.artifacts.POST,
      { method: "POST", params, raw: JSON.stringify({ filename: "big", text: big }) },
      413,
      "payload_too_large",
    ],
    [
      "oversized body, lying length",
      routes.events.POST,
      { method: "POST", params, raw: big, headers: { "content-length": "10" } },
      413,
      "payload_too_large",
    ],
    [
      "unknown agent (A2A)",
      routes.a2a.POST,
      { method: "POST", params: { agent: "nobody" }, body: { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "x" } } },
      404,
      "agent_not_found",
    ],
    // Cross-site request forgery: a body no cross-site form can send, the cookie from a foreign origin.
    ["text/plain body (sessions)", routes.sessions.POST, as("text/plain", { method: "POST", body: {} }), 415, "unsupported_media_type"],
    [
      "form body (events)",
      routes.events.POST,
      as("application/x-www-form-urlencoded", { method: "POST", params, body: event }),
      415,
      "unsupported_media_type",
    ],
    [
      "no content type (rewind)",
      routes.rewind.POST,
      as("", { method: "POST", params, body: { rewind_before_invocation_id: "x" } }),
      415,
      "unsupported_media_type",
    ],
    [
      "text/plain body (A2A)",
      routes.a2a.POST,
      as("text/plain", a2a(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message } }))),
      415,
      "unsupported_media_type",
    ],
    [
      "cookie from another origin (fork)",
      routes.fork.POST,
      { method: "POST", params, body: {}, token: null, headers: browser(token, "http://localhost:3999") },
      403,
      "cross_origin",
    ],
    [
      "cookie from another origin (A2A)",
      routes.a2a.POST,
      {
        ...a2a(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message } })),
        token: null,
        headers: browser(token, "http://127.0.0.1:3999"),
      },
      403,
      "cross_origin",
    ],
    [
      "cookie from an opaque origin (artifact)",
      routes.artifacts.POST,
      { ...file("x.txt"), token: null, headers: browser(token, "null") },
      403,
      "cross_origin",
    ],
    ["malformed token cookie", routes.sessions.GET, { token: null, headers: { cookie: "retrace_token=%E0%A4%A" } }, 401, "unauthorized"],
    // One request never stalls the others.
    post(
      routes.events.POST,
      Array.from({ length: 1001 }, (_, i) => ({ ...event, id: `e${i}` })),
      400,
      "too_many_events",
      "1,001 events in one append",
    ),
    [
      "JSON nested 5,000 deep (session state)",
      routes.sessions.POST,
      { method: "POST", raw: `{"state":{"k":${deep(5000)}}}` },
      400,
      "json_too_deep",
    ],
    ["JSON nested 65 deep (events)", routes.events.POST, { method: "POST", params, raw: deep(65) }, 400, "json_too_deep"],
    [
      "kagent envelope nested 5,000 deep",
      routes.events.POST,
      {
        method: "POST",
        params,
        body: { id: "k", data: `{"invocation_id":"i","author":"user","actions":{"state_delta":{"k":${deep(5000)}}}}` },
      },
      400,
      "json_too_deep",
    ],
    [
      "JSON nested 5,000 deep (A2A)",
      routes.a2a.POST,
      a2a(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":${deep(5000)}}}`),
      400,
      "json_too_deep",
    ],
    // Values that would break a header or a download later.
    ["mime_type with CR/LF", routes.artifacts.POST, typed("text/html\r\nSet-Cookie: x=1"), 400, "invalid_request"],
    ["mime_type with NUL", routes.artifacts.POST, typed("text/plain\u0000"), 400, "invalid_text"],
    ["mime_type beyond Latin-1", routes.artifacts.POST, typed("text/plain; charset=日本"), 400, "invalid_request"],
    ["mime_type with Latin-1 letters", routes.artifacts.POST, typed("text/plaîn"), 400, "invalid_request"],
    ["mime_type without subtype", routes.artifacts.POST, typed("text"), 400, "invalid_request"],
    ["empty mime_type", routes.artifacts.POST, typed(""), 400, "invalid_request"],
    ["empty version", routes.artifactFile.GET, version("version="), 400, "invalid_request"],
    ["exponent version", routes.artifactFile.GET, version("version=1e2"), 400, "invalid_request"],
    ["hex version", routes.artifactFile.GET, version("version=0x1"), 400, "invalid_request"],
    ["bidi override filename", routes.artifacts.POST, file("invoice\u202Etxt.exe"), 400, "invalid_request"],
    ["bidi isolate filename", routes.artifacts.POST, file("\u2066notes\u2069.txt"), 400, "invalid_request"],
    ["right-to-left mark filename", routes.artifacts.POST, file("notes\u200F.txt"), 400, "invalid_request"],
    ["bell character filename", routes.artifacts.POST, file("ding\u0007.txt"), 400, "invalid_request"],
    ["DEL character filename", routes.artifacts.POST, file("del\u007F.txt"), 400, "invalid_request"],
    ["newline filename", routes.artifacts.POST, file("two\nlines.txt"), 400, "invalid_request"],
    ["C1 control filename", routes.artifacts.POST, file("next\u0085line.txt"), 400, "invalid_request"],
    // Paths no route serves.
    ...["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"].map(
      (method): Case => [
        `unknown /api path (${method})`,
        routes.unknown[method as "GET"],
        { method, path: "/api/nope/deeper", body: method === "GET" ? undefined : {} },
        404,
        "not_found",
      ],
    ),
  ];
}

/** Bad JSON-RPC: a JSON-RPC error object (never a 500, never a stream of a turn). */
const rpcCases: [string, string][] = [
  ["not JSON", "{"],
  ["not an object", "[]"],
  ["missing method", JSON.stringify({ jsonrpc: "2.0", id: 1, params: {} })],
  ["unknown method", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/explode", params: {} })],
  ["message without parts", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message: { role: "user" } } })],
  [
    "agent-role message",
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "message/send",
      params: { message: { kind: "message", messageId: "m", role: "agent", parts: [{ kind: "text", text: "hi" }] } },
    }),
  ],
  [
    "empty message",
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "message/send",
      params: { message: { kind: "message", messageId: "m", role: "user", parts: [] } },
    }),
  ],
  ["unknown task", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "nope" } })],
  ["tasks/get without id", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: {} })],
];

describe("bad input (docs/api.md § Requests): a clear 4xx, nothing written", () => {
  it("HTTP routes", async () => {
    const alice = await guestWithChat();
    const before = await snapshot();
    const seen: string[] = [];
    for (const [name, route, request, status, code] of catalogue(alice.sessionId, alice.token)) {
      const response = await call(route, { token: alice.token, ...request });
      expect({ name, status: response.status }).toEqual({ name, status });
      expect(response.json, name).toEqual({ error: expect.any(String), code: expect.stringMatching(code) });
      seen.push(name);
    }
    expect(await snapshot()).toEqual(before);
    expect(seen.length).toBeGreaterThanOrEqual(71);
  });

  it("A2A JSON-RPC", async () => {
    const alice = await guestWithChat();
    const before = await snapshot();
    for (const [name, raw] of rpcCases) {
      const { status, json } = await call(routes.a2a.POST, { method: "POST", token: alice.token, params: { agent: "demo" }, raw });
      expect({ name, status, error: typeof json?.error?.code }).toEqual({ name, status: 200, error: "number" });
    }
    expect(await snapshot()).toEqual(before);
  });
});
