/** Text the store cannot keep, prototype names, malformed JSON-RPC params and server-action requests (docs/api.md, "Requests"). */
import { describe, expect, it } from "vitest";
import { refuseBadPagePost } from "@/lib/api/page-post";
import { type Call, call, guestWithChat, routes, snapshot } from "./support/api";

/** A JSON string literal holding `text` escaped, as JSON.stringify writes NUL and unpaired surrogates. */
const literal = (text: string) => JSON.stringify(text);

/** Every way text reaches the store, with `bad` put into it. */
function textCases(sessionId: string, invocationId: string, bad: string): [string, unknown, Call][] {
  const params = { id: sessionId };
  const body = (route: unknown, raw: string, name: string, extra: Partial<Call> = {}): [string, unknown, Call] => [
    name,
    route,
    { method: "POST", params, raw, ...extra },
  ];
  const s = literal(bad);
  const message = (fields: string) =>
    `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","role":"user",${fields}}}}`;
  const a2a = { params: { agent: "demo" } };
  return [
    body(routes.sessions.POST, `{"name":${s}}`, "chat name"),
    body(routes.sessions.POST, `{"state":{${s}:1}}`, "state key of a new chat"),
    ["rename", routes.session.PATCH, { method: "PATCH", params, raw: `{"name":${s}}` }],
    body(routes.events.POST, `{"id":${s},"invocation_id":"i","author":"user"}`, "event id"),
    body(routes.events.POST, `{"invocation_id":${s},"author":"user"}`, "invocation id"),
    body(routes.events.POST, `{"invocation_id":"i","author":${s}}`, "author"),
    body(routes.events.POST, `{"invocation_id":"i","author":"user","actions":{"state_delta":{${s}:1}}}`, "state delta key"),
    body(routes.events.POST, `{"invocation_id":"i","author":"user","content":{"parts":[{"text":${s}}]}}`, "message text"),
    body(routes.events.POST, JSON.stringify({ id: "k", data: `{"invocation_id":${s},"author":"user"}` }), "kagent envelope"),
    body(routes.rewind.POST, `{"rewind_before_invocation_id":${s}}`, "rewind target"),
    body(routes.fork.POST, `{"rewind_before_invocation_id":"${invocationId}","name":${s}}`, "fork name"),
    body(routes.switchTo.POST, `{"invocation_id":${s}}`, "switch target"),
    body(routes.artifacts.POST, `{"filename":${s},"text":"x"}`, "file name"),
    ["session id in the path", routes.session.GET, { params: { id: bad } }],
    ["file name in the path", routes.artifactFile.GET, { params: { id: sessionId, filename: bad } }],
    // A URL cannot carry an unpaired surrogate (its UTF-8 is invalid, and decodes to U+FFFD): only NUL.
    ...(bad.isWellFormed()
      ? [
          ["cursor in the query", routes.tasks.GET, { params, path: `/x?limit=5&before=${encodeURIComponent(bad)}` }] as [
            string,
            unknown,
            Call,
          ],
        ]
      : []),
    body(routes.a2a.POST, message(`"messageId":"m","parts":[{"kind":"text","text":${s}}]`), "A2A text", a2a),
    body(routes.a2a.POST, message(`"messageId":${s},"parts":[{"kind":"text","text":"hi"}]`), "A2A message id", a2a),
    body(routes.a2a.POST, message(`"messageId":"m","contextId":${s},"parts":[{"kind":"text","text":"hi"}]`), "A2A context id", a2a),
    body(routes.a2a.POST, `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":${s}}}`, "A2A task id", a2a),
  ];
}

describe('the text rule: no NUL, no unpaired surrogate, anywhere (docs/api.md, "Requests")', () => {
  for (const [kind, bad] of [
    ["NUL", "a\u0000b"],
    ["a lone high surrogate", "a\ud800b"],
    ["a lone low surrogate", "\udc00"],
    ["a high surrogate at the end", "ab\udbff"],
  ]) {
    it(`refuses ${kind} on every route with 400 invalid_text and writes nothing`, async () => {
      const alice = await guestWithChat();
      const before = await snapshot();
      for (const [name, route, request] of textCases(alice.sessionId, alice.invocations[1], bad)) {
        const response = await call(route, { token: alice.token, ...request });
        expect({ name, status: response.status, code: response.json?.code }).toEqual({ name, status: 400, code: "invalid_text" });
      }
      expect(await snapshot()).toEqual(before);
    });
  }

  it("accepts surrogate pairs, escaped or not", async () => {
    const alice = await guestWithChat();
    const created = await call(routes.sessions.POST, { method: "POST", token: alice.token, raw: `{"name":"\\ud83d\\ude00 and 🎉"}` });
    expect({ status: created.status, name: created.json.data.name }).toEqual({ status: 201, name: "😀 and 🎉" });
  });
});

describe("__proto__ is a name like any other (docs/semantics.md, State scopes)", () => {
  it("as a state key and a file name, through REST and through the demo agent alike", async () => {
    const alice = await guestWithChat();
    const { token, sessionId } = alice;
    const created = await call(routes.sessions.POST, { method: "POST", token, raw: '{"state":{"__proto__":{"a":1},"b":2}}' });
    expect(created.json.data.state).toEqual(JSON.parse('{"__proto__":{"a":1},"b":2}'));
    expect(Object.keys(created.json.data.state)).toEqual(["__proto__", "b"]);

    const saved = await call(routes.artifacts.POST, {
      method: "POST",
      token,
      params: { id: sessionId },
      body: { filename: "__proto__", text: "x" },
    });
    expect(saved.json.data).toEqual({ filename: "__proto__", version: 0 });
    const appended = await call(routes.events.POST, {
      method: "POST",
      token,
      params: { id: sessionId },
      raw: '{"invocation_id":"p","author":"user","actions":{"state_delta":{"__proto__":5},"artifact_delta":{"__proto__":0}}}',
    });
    expect(appended.status).toBe(201);
    expect(Object.keys(appended.json.data[0].actions.state_delta)).toEqual(["__proto__"]);
    expect(Object.keys(appended.json.data[0].actions.artifact_delta)).toEqual(["__proto__"]);
    const session = await call(routes.session.GET, { token, params: { id: sessionId } });
    expect(Object.hasOwn(session.json.data.session.state, "__proto__")).toBe(true);
    expect(Object.getOwnPropertyDescriptor(session.json.data.session.state, "__proto__")?.value).toBe(5);
    // The demo agent's update_state tool writes the same key the same way.
    const message = {
      kind: "message",
      messageId: "p2",
      role: "user",
      parts: [{ kind: "text", text: "set __proto__ to 7" }],
      contextId: sessionId,
    };
    const turn = await call(routes.a2a.POST, {
      method: "POST",
      token,
      params: { agent: "demo" },
      body: { jsonrpc: "2.0", id: 1, method: "message/send", params: { message } },
    });
    expect(turn.json.result.status.state).toBe("completed");
    const after = await call(routes.session.GET, { token, params: { id: sessionId } });
    expect(Object.getOwnPropertyDescriptor(after.json.data.session.state, "__proto__")?.value).toBe(7);
  });
});

describe("malformed JSON-RPC params: -32602 or -32600 (or push notifications unsupported) with a plain message, never JavaScript's", () => {
  const rpc = (method: string, params: unknown, version?: string) => ({
    raw: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params }),
    headers: version ? { "a2a-version": version } : ({} as Record<string, string>),
  });
  const v03 = { kind: "message", messageId: "m", role: "user", parts: [{ kind: "text", text: "hi" }] };
  const v1 = { messageId: "m", role: "ROLE_USER", parts: [{ text: "hi" }] };
  const cases: [string, { raw: string; headers: Record<string, string> }][] = [
    ["body null", { raw: "null", headers: {} }],
    ["body a number", { raw: "7", headers: {} }],
    ["push config set, params null", rpc("tasks/pushNotificationConfig/set", null)],
    ["push config set, config not an object", rpc("tasks/pushNotificationConfig/set", { taskId: "t", pushNotificationConfig: 5 })],
    ["contextId an object (v0.3)", rpc("message/send", { message: { ...v03, contextId: {} } })],
    ["contextId an object (v1.0)", rpc("SendMessage", { message: { ...v1, contextId: {} } }, "1.0")],
    ["parts [null] (v0.3)", rpc("message/send", { message: { ...v03, parts: [null] } })],
    ["parts [null] (v1.0)", rpc("SendMessage", { message: { ...v1, parts: [null] } }, "1.0")],
    ["parts a string (v1.0)", rpc("SendStreamingMessage", { message: { ...v1, parts: "hi" } }, "1.0")],
    ["task id an object", rpc("tasks/get", { id: {} })],
    ["list tasks, pageSize a string", rpc("ListTasks", { contextId: "c", pageSize: "x" }, "1.0")],
  ];

  it("answers each with a JSON-RPC error and changes nothing", async () => {
    const alice = await guestWithChat();
    const before = await snapshot();
    for (const [name, request] of cases) {
      const { status, json } = await call(routes.a2a.POST, { method: "POST", token: alice.token, params: { agent: "demo" }, ...request });
      expect({ name, status, code: json?.error?.code }).toEqual({ name, status: 200, code: expect.toBeOneOf([-32600, -32602, -32003]) });
      expect(json.error.message, name).not.toMatch(/Cannot read|undefined|null \(reading|is not a function|TypeError/);
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe("server actions Next.js would answer with a 500 are refused in the proxy", () => {
  const action = (body: string, headers: Record<string, string>) =>
    new Request("http://localhost/", {
      method: "POST",
      body,
      headers: { "next-action": "7f00", "content-type": "text/plain;charset=UTF-8", host: "localhost", ...headers },
    });
  const verdict = async (request: Request) => {
    const response = await refuseBadPagePost(request);
    return response && { status: response.status, code: (await response.json()).code };
  };

  it("from another origin: 403, whatever the body", async () => {
    for (const body of ['["x"]', "null", "{}"]) {
      expect(await verdict(action(body, { origin: "http://evil.example" }))).toEqual({ status: 403, code: "cross_origin" });
    }
  });

  it("with arguments that are not an array: 400; from our own origin or none, an array passes", async () => {
    for (const body of ['"x"', "null", '{"a":1}', "5"]) {
      expect(await verdict(action(body, { origin: "http://localhost" }))).toEqual({ status: 400, code: "invalid_request" });
    }
    expect(await verdict(action('["x"]', { origin: "http://localhost" }))).toBeNull();
    expect(await verdict(action('["x"]', {}))).toBeNull();
    expect(await verdict(action(`["a${"\\u0000"}b"]`, {}))).toEqual({ status: 400, code: "invalid_request" });
  });
});
