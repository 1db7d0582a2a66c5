import { beforeEach, describe, expect, it } from "vitest";
import { listEvents } from "@/lib/db/queries";
import { legacyMessage, rpc, v1Message } from "./support/a2a";
import { call, newGuest, routes, snapshot } from "./support/api";

beforeEach(() => {
  process.env.DEMO_WORD_DELAY_MS = "0";
});

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
/** The demo's usage for a reply (docs/semantics.md, "The demo agent"): a word is a token. */
const demoUsage = (said: string, reply: string) => ({
  prompt_token_count: words(said),
  candidates_token_count: words(reply),
  total_token_count: words(said) + words(reply),
});

type User = Awaited<ReturnType<typeof newGuest>>;

/** A v0.3 send; resolves with the final task (v0.3 JSON). */
async function send(user: User, text: string, contextId?: string, metadata?: Record<string, unknown>) {
  const { json } = await rpc(user.token, "message/send", { message: legacyMessage(text, contextId, metadata) });
  if (json.error) throw Object.assign(new Error(json.error.message), json.error);
  return json.result;
}

const replyOf = (task: { history: { parts: { text?: string }[] }[] }) => task.history.at(-1)?.parts[0].text ?? "";

describe("models (docs/api.md, A2A: retrace_model)", () => {
  it("GET /api/agents lists each agent's models, its default first", async () => {
    const user = await newGuest();
    const { json } = await call(routes.agents.GET, { token: user.token });
    expect(json.data[0]).toEqual({ name: "demo", description: expect.any(String), models: [{ name: "demo" }, { name: "demo-terse" }] });
  });

  it("v0.3: the message picks the model; the task, every message and every stored event name it; the final task sums the usage", async () => {
    const user = await newGuest();
    const task = await send(user, "set color to red", undefined, { retrace_model: "demo-terse" });
    expect(replyOf(task)).toBe("color = `red`");
    expect(task.metadata).toMatchObject({
      retrace_model: "demo-terse",
      kagent_usage_metadata: demoUsage("set color to red", "color = `red`"),
    });
    expect(task.history.map((m: { metadata: { retrace_model?: string } }) => m.metadata.retrace_model)).toEqual(
      Array(4).fill("demo-terse"),
    );
    expect(task.history.at(-1).metadata.kagent_usage_metadata).toEqual(demoUsage("set color to red", "color = `red`"));
    const events = (await listEvents(user.user_id, task.contextId, "all")).items;
    expect(events.map((e) => e.custom_metadata)).toEqual(Array(4).fill({ retrace_model: "demo-terse" }));
    expect(events.at(-1)?.usage_metadata).toEqual(demoUsage("set color to red", "color = `red`"));
    // Without retrace_model the agent's first model answers.
    const next = await send(user, "what is color?", task.contextId);
    expect(next.metadata.retrace_model).toBe("demo");
    expect(replyOf(next)).toBe("**color** is `red`.");
  });

  it("v1.0: the same metadata, streamed: the final status update carries the turn's usage", async () => {
    const user = await newGuest();
    const message = v1Message("recap", undefined, { retrace_model: "demo-terse" });
    const { frames } = await rpc(user.token, "SendStreamingMessage", { message }, { version: "1.0" });
    expect(frames[0].result.task.metadata).toMatchObject({ retrace_model: "demo-terse" });
    const final = frames.at(-1)?.result.statusUpdate;
    expect(final.status.state).toBe("TASK_STATE_COMPLETED");
    expect(final.metadata).toMatchObject({ retrace_model: "demo-terse", kagent_usage_metadata: demoUsage("recap", "Nothing yet.") });
    const stored = frames.filter(
      (f) => f.result.statusUpdate?.status.message && !f.result.statusUpdate.status.message.metadata?.adk_partial,
    );
    expect(stored.at(-1)?.result.statusUpdate.status.message.metadata).toMatchObject({ retrace_model: "demo-terse" });
  });

  it("a model the agent does not list is refused (-32602 unknown_model) and writes nothing", async () => {
    const user = await newGuest();
    const task = await send(user, "set color to red");
    const before = await snapshot();
    for (const [version, method, message] of [
      ["0.3", "message/send", legacyMessage("hi", task.contextId, { retrace_model: "gpt-9" })],
      ["0.3", "message/stream", legacyMessage("hi", undefined, { retrace_model: "gpt-9" })],
      ["1.0", "SendMessage", v1Message("hi", task.contextId, { retrace_model: "gpt-9" })],
    ] as const) {
      const { json, frames } = await rpc(user.token, method, { message }, { version });
      const error = json?.error ?? frames[0]?.error;
      expect(error, method).toMatchObject({ code: -32602, message: 'Agent demo has no model "gpt-9"; it has demo, demo-terse' });
      expect(JSON.stringify(error.data), method).toContain("unknown_model");
    }
    // The model is checked before the message's files are stored: a file too large for uploads still answers unknown_model.
    process.env.RETRACE_MAX_UPLOAD_BYTES = "1000";
    try {
      const withFile = legacyMessage("hi", task.contextId, { retrace_model: "gpt-9" });
      withFile.parts.push({
        kind: "file",
        file: { bytes: Buffer.alloc(2000).toString("base64"), mimeType: "text/plain", name: "a.txt" },
      } as never);
      const refused = await rpc(user.token, "message/send", { message: withFile });
      expect(JSON.stringify(refused.json.error.data)).toContain("unknown_model");
    } finally {
      delete process.env.RETRACE_MAX_UPLOAD_BYTES;
    }
    const { json } = await rpc(user.token, "message/send", { message: legacyMessage("hi", task.contextId, { retrace_model: 7 }) });
    expect(json.error).toMatchObject({ code: -32602, message: expect.stringContaining("retrace_model") });
    expect(await snapshot()).toEqual(before);
  });

  it("Regenerate with another model is a sibling version; each keeps its model and usage", async () => {
    const user = await newGuest();
    const first = await send(user, "set color to red");
    const again = await send(user, "set color to red", first.contextId, {
      kagent_rewind_before_invocation_id: first.metadata.kagent_invocation_id,
      retrace_rewind_reason: "regenerate",
      retrace_model: "demo-terse",
    });
    expect(again.metadata.retrace_model).toBe("demo-terse");
    const { json } = await call(routes.tasks.GET, { token: user.token, params: { id: first.contextId } });
    expect(json.data).toHaveLength(1);
    expect(json.data[0].metadata.retrace_siblings).toMatchObject({ index: 2, regenerations: true });
  });
});

describe("the tree's usage: per turn, and the chat's totals apart for rewound branches", () => {
  it("sums what the turns reported: the head shown now, and the rewound turns", async () => {
    const user = await newGuest();
    const a = await send(user, "set color to red");
    const b = await send(user, "what is color?", a.contextId);
    const b2 = await send(user, "what is color?", a.contextId, {
      kagent_rewind_before_invocation_id: b.metadata.kagent_invocation_id,
      retrace_rewind_reason: "regenerate",
      retrace_model: "demo-terse",
    });
    const { json } = await call(routes.tree.GET, { token: user.token, params: { id: a.contextId } });
    const usage = (task: { metadata: { kagent_usage_metadata: object } }) => task.metadata.kagent_usage_metadata;
    expect(json.data.turns.map((t: { model: string; usage: object; current: boolean }) => [t.model, t.usage, t.current])).toEqual([
      ["demo", usage(a), true],
      ["demo", usage(b), false],
      ["demo-terse", usage(b2), true],
    ]);
    const sum = (...tasks: (typeof a)[]) => {
      const all = tasks.map(usage) as { prompt_token_count: number; candidates_token_count: number; total_token_count: number }[];
      return {
        prompt_token_count: all.reduce((n, u) => n + u.prompt_token_count, 0),
        candidates_token_count: all.reduce((n, u) => n + u.candidates_token_count, 0),
        total_token_count: all.reduce((n, u) => n + u.total_token_count, 0),
        turns: all.length,
        costs: [],
      };
    };
    expect(json.data.usage).toEqual({ current: sum(a, b2), rewound: sum(b) });
  });
});

describe("compare versions (GET /api/sessions/{id}/versions/compare)", () => {
  it("answers both turns' tasks, the rewound one marked; checks the turns and the owner", async () => {
    const user = await newGuest();
    const first = await send(user, "set color to red");
    const regenerated = await send(user, "set color to red", first.contextId, {
      kagent_rewind_before_invocation_id: first.metadata.kagent_invocation_id,
      retrace_rewind_reason: "regenerate",
      retrace_model: "demo-terse",
    });
    const [a, b] = [first, regenerated].map((t) => t.metadata.kagent_invocation_id);
    const params = { id: first.contextId };
    const { status, json } = await call(routes.compare.GET, { token: user.token, params, path: `/x?a=${a}&b=${b}` });
    expect(status).toBe(200);
    expect(json.data.a).toMatchObject({ id: first.id, metadata: { retrace_model: "demo", rewound: true } });
    expect(json.data.b).toMatchObject({ id: regenerated.id, metadata: { retrace_model: "demo-terse" } });
    expect(json.data.b.metadata.rewound).toBeUndefined();
    expect(replyOf(json.data.a)).toBe("Done — **color** is now `red`.");
    expect(replyOf(json.data.b)).toBe("color = `red`");

    const marker = (await listEvents(user.user_id, first.contextId, "all")).items.find((e) => e.actions?.rewind_before_invocation_id);
    for (const [query, code] of [
      [`?a=${a}&b=e-nope`, "invocation_not_found"],
      [`?a=${marker?.invocation_id}&b=${b}`, "invocation_not_found"],
      [`?a=${a}`, "invalid_request"],
    ]) {
      const refused = await call(routes.compare.GET, { token: user.token, params, path: `/x${query}` });
      expect({ query, status: refused.status, code: refused.json.code }).toEqual({ query, status: 400, code });
    }
    const other = await newGuest();
    const foreign = await call(routes.compare.GET, { token: other.token, params, path: `/x?a=${a}&b=${b}` });
    expect([foreign.status, foreign.json.code]).toEqual([404, "not_found"]);
  });
});
