import { afterEach, describe, expect, it } from "vitest";
import { parseIntent } from "@/lib/agent/demo-agent";
import { getAgent, listAgents } from "@/lib/agent/registry";
import { cancelTurn, startTurn, type TurnUpdate, watchTurn } from "@/lib/agent/runtime";
import type { Agent } from "@/lib/agent/types";
import { getSession, listArtifacts, listEvents, listTasks, loadArtifact, rewindSession, saveArtifact } from "@/lib/db/queries";
import { messageText } from "@/lib/task/convert";
import type { Message } from "@/lib/task/types";
import { type Fixture, fixture } from "./helpers";

const demo = getAgent("demo");

afterEach(() => {
  delete process.env.DEMO_WORD_DELAY_MS;
});

async function turn(f: Fixture, text: string, agent: Agent = demo) {
  process.env.DEMO_WORD_DELAY_MS ??= "0";
  return (await startTurn({ userId: f.userId, sessionId: f.sessionId, agent, text })).done;
}

const events = async (f: Fixture) => (await listEvents(f.userId, f.sessionId, "all")).items;
const state = async (f: Fixture) => (await getSession(f.userId, f.sessionId)).state;
const running = async (f: Fixture) => (await getSession(f.userId, f.sessionId)).running_task_id;

/** Reads a turn's updates until `words` words have streamed. */
async function streamedWords(updates: AsyncIterable<TurnUpdate>, words: number) {
  let streamed = "";
  for await (const update of updates) {
    if (update.kind !== "partial") continue;
    streamed += messageText(update.message);
    if (streamed.split(" ").length > words) break;
  }
  return streamed;
}

const reply = (task: Awaited<ReturnType<typeof turn>>) => {
  const last = task.history!.at(-1)!.parts[0];
  return last.kind === "text" ? last.text : "";
};

describe("demo agent: parsing", () => {
  it.each([
    ["set color to red", "color", "red"],
    ["Set state color to red.", "color", "red"],
    ["please SET   the color = blue!", "color", "blue"],
    ['set color to "dark red"', "color", "dark red"],
    ["set count to 3", "count", 3],
    ['set prefs to {"a":1}', "prefs", { a: 1 }],
    ["set app:theme to dark", "app:theme", "dark"],
    ["set user:name to 'Ada'", "user:name", "Ada"],
    ["set master to on", "master", "on"],
    ["set pi to 3.14.", "pi", 3.14],
  ])("%s → update_state", (text, key, value) => {
    expect(parseIntent(text)).toMatchObject({ tool: "update_state", args: { key, value } });
  });

  it.each([
    ["what is color?", "color"],
    ["What's the color", "color"],
    ["whats user:name??", "user:name"],
    ["get state count", "count"],
  ])("%s → load_state", (text, key) => {
    expect(parseIntent(text)).toMatchObject({ tool: "load_state", args: { key } });
  });

  it("parses file commands, keeping the content verbatim", () => {
    expect(parseIntent("save file notes.txt with content hello  world.\nline 2")).toMatchObject({
      tool: "save_artifact",
      args: { filename: "notes.txt", content: "hello  world.\nline 2" },
    });
    expect(parseIntent('Save "notes.txt" with content: "hi"')).toMatchObject({ args: { filename: "notes.txt", content: "hi" } });
    expect(parseIntent("load file notes.txt")).toMatchObject({ tool: "load_artifact", args: { filename: "notes.txt" } });
    expect(parseIntent("Open notes.txt.")).toMatchObject({ tool: "load_artifact", args: { filename: "notes.txt" } });
    expect(parseIntent("show file notes.txt")).toMatchObject({ tool: "load_artifact" });
  });

  it("recognises recap and falls back to help", () => {
    expect(parseIntent("Recap, please")).toEqual({ recap: true });
    expect(parseIntent("hello")).toEqual({ help: true });
    expect(parseIntent("")).toEqual({ help: true });
  });
});

describe("registry", () => {
  it("lists demo first and refuses unknown agents", () => {
    expect(listAgents()[0].name).toBe("demo");
    expect(() => getAgent("nobody")).toThrow(expect.objectContaining({ status: 404, code: "agent_not_found" }));
  });
});

describe("demo agent: turns on the real store", () => {
  it("stores user, call, response and text events with one invocation id, and one task", async () => {
    const f = await fixture();
    const task = await turn(f, "set color to red");
    const log = await events(f);
    expect(log.map((e) => e.author)).toEqual(["user", "demo", "demo", "demo"]);
    expect(new Set(log.map((e) => e.invocation_id)).size).toBe(1);
    expect(log[0].invocation_id).toMatch(/^e-[0-9a-f-]{36}$/);
    expect(log[1].content?.parts?.[0].function_call).toMatchObject({ name: "update_state", args: { key: "color", value: "red" } });
    expect(log[2].actions?.state_delta).toEqual({ color: "red" });
    expect(log.slice(1).map((e) => [e.partial, e.turn_complete ?? null])).toEqual([
      [false, null],
      [false, null],
      [false, true],
    ]);
    expect(await state(f)).toEqual({ color: "red" });

    expect(task.status.state).toBe("completed");
    expect(task.metadata?.kagent_invocation_id).toBe(log[0].invocation_id);
    expect(task.history?.map((m) => m.metadata?.kagent_event_id)).toEqual(log.map((e) => e.id));
    expect((await listTasks(f.userId, f.sessionId)).items).toEqual([task]);
    expect(reply(await turn(f, "what is color?"))).toBe("**color** is `red`.");
  });

  it("saves and loads files, and a rewound file is not found", async () => {
    const f = await fixture();
    const saved = await turn(f, "save file notes.txt with content hello");
    expect(saved.history?.[2].metadata?.kagent_artifact_delta).toEqual({ "notes.txt": 0 });
    expect((await loadArtifact(f.userId, f.sessionId, "notes.txt")).data.toString()).toBe("hello");
    expect(reply(await turn(f, "load file notes.txt"))).toContain("hello");

    await rewindSession(f.userId, f.sessionId, saved.metadata?.kagent_invocation_id as string);
    expect(await listArtifacts(f.userId, f.sessionId)).toEqual([]);
    expect(reply(await turn(f, "load file notes.txt"))).toMatch(/couldn't find \*\*notes\.txt\*\*/);
  });

  it("recaps only the effective history", async () => {
    const f = await fixture();
    await turn(f, "first");
    const second = await turn(f, "second");
    await turn(f, "third");
    expect(reply(await turn(f, "recap"))).toBe("Here is what you said so far:\n\n1. first\n2. second\n3. third");
    await rewindSession(f.userId, f.sessionId, second.metadata?.kagent_invocation_id as string);
    expect(reply(await turn(f, "recap"))).toBe("Here is what you said so far:\n\n1. first");
  });

  it("may not set app-wide state: the tool answers an error and nothing is written", async () => {
    const f = await fixture();
    const task = await turn(f, "set app:motd to hacked");
    expect(reply(task)).toMatch(/couldn't set \*\*app:motd\*\*: app-wide \(app:\) state can only be set by the operator/);
    expect(task.history?.[2].parts[0]).toMatchObject({ data: { response: { error: expect.stringContaining("operator") } } });
    expect(await state(f)).toEqual({});
  });

  it("treats prototype names as plain keys and files", async () => {
    const f = await fixture();
    expect(reply(await turn(f, "what is toString?"))).toBe("I don't have a value for **toString** yet.");
    expect(reply(await turn(f, "set constructor to 5"))).toBe("Done — **constructor** is now `5`.");
    const saved = await turn(f, "save file constructor with content hi");
    expect(reply(await turn(f, "what is constructor?"))).toBe("**constructor** is `5`.");
    await rewindSession(f.userId, f.sessionId, saved.metadata?.kagent_invocation_id as string);
    expect(await listArtifacts(f.userId, f.sessionId)).toEqual([]);
    expect(await state(f)).toEqual({ constructor: 5 });
  });

  it("shows only the start of a huge file, in a bounded number of streamed pieces", async () => {
    const f = await fixture();
    process.env.DEMO_WORD_DELAY_MS = "0";
    const words = Array.from({ length: 200_000 }, (_, i) => `w${i}`).join(" ");
    await saveArtifact(f.userId, f.sessionId, { filename: "big.txt", mimeType: "text/plain", data: Buffer.from(words) });
    const started = await startTurn({ userId: f.userId, sessionId: f.sessionId, agent: demo, text: "load file big.txt" });
    let pieces = 0;
    for await (const update of started.updates) if (update.kind === "partial") pieces += 1;
    const text = reply(await started.done);
    expect(text).toMatch(/^Here is the start of \*\*big\.txt\*\* \(version 0; 2000 of 1488889 characters\):/);
    expect(text.length).toBeLessThan(2200);
    expect(pieces).toBeLessThanOrEqual(200);
  });

  it("holds the session for the whole turn", async () => {
    const f = await fixture();
    process.env.DEMO_WORD_DELAY_MS = "5";
    const started = await startTurn({ userId: f.userId, sessionId: f.sessionId, agent: demo, text: "hi" });
    expect(await running(f)).toBe(started.taskId);
    await expect(startTurn({ userId: f.userId, sessionId: f.sessionId, agent: demo, text: "again" })).rejects.toMatchObject({
      code: "session_busy",
    });
    await started.done;
    expect(await running(f)).toBeNull();
  });

  it("cancel keeps what streamed so far as an interrupted final event", async () => {
    const f = await fixture();
    process.env.DEMO_WORD_DELAY_MS = "20";
    const started = await startTurn({ userId: f.userId, sessionId: f.sessionId, agent: demo, text: "hi" });
    const streamed = await streamedWords(started.updates, 3);
    const task = await cancelTurn(f.userId, started.taskId);
    expect(task?.status.state).toBe("canceled");
    expect((await events(f)).at(-1)).toMatchObject({ interrupted: true, turn_complete: true, content: { parts: [{ text: streamed }] } });
    expect(task?.history?.at(-1)?.metadata?.kagent_interrupted).toBe(true);
    expect(await cancelTurn(f.userId, started.taskId)).toBeNull();
    expect(await running(f)).toBeNull();
  });

  it("cancel while a tool call waits for its result keeps the call, and ends the turn canceled", async () => {
    const f = await fixture();
    let calling: () => void = () => undefined;
    const called = new Promise<void>((resolve) => {
      calling = resolve;
    });
    const slowTool: Agent = {
      name: "demo",
      description: "",
      mcp: [],
      async *run(ctx) {
        yield { type: "event", parts: [{ function_call: { id: "c1", name: "load_state", args: { key: "k" } } }] };
        calling();
        await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
        yield { type: "event", parts: [{ function_response: { id: "c1", name: "load_state", response: {} } }] };
      },
    };
    const started = await startTurn({ userId: f.userId, sessionId: f.sessionId, agent: slowTool, text: "hi" });
    await called;
    expect((await events(f)).map((e) => e.author)).toEqual(["user"]); // the call waits for its result
    const task = await cancelTurn(f.userId, started.taskId);
    expect(task?.status.state).toBe("canceled");
    expect((await events(f)).map((e) => Object.keys(e.content?.parts?.[0] ?? {})[0])).toEqual(["text", "function_call"]);
    expect(await running(f)).toBeNull();
  });

  it("a late watcher gets the task, the text streamed so far, then the rest of the turn", async () => {
    const f = await fixture();
    process.env.DEMO_WORD_DELAY_MS = "10";
    const started = await startTurn({ userId: f.userId, sessionId: f.sessionId, agent: demo, text: "hi" });
    await streamedWords(started.updates, 3);
    const watched = await watchTurn(f.userId, started.taskId);
    expect(watched).not.toBeNull();
    const seen: TurnUpdate[] = [];
    for await (const update of watched ?? []) seen.push(update);
    const final = await started.done;
    expect(seen[0]).toMatchObject({ kind: "task", task: { id: started.taskId } });
    expect(seen[1]).toMatchObject({ kind: "partial" });
    const text = seen
      .filter((u) => u.kind === "partial")
      .map((u) => messageText((u as { message: Message }).message))
      .join("");
    expect(text).toBe(messageText(final.history?.at(-1) as Message));
    expect(seen.at(-1)).toEqual({ kind: "done", task: final });
    expect(await watchTurn(f.userId, started.taskId)).toBeNull();
  });

  it("an agent failure fails the task with its message and stores an error event", async () => {
    const f = await fixture();
    const broken: Agent = {
      name: "demo",
      description: "",
      mcp: [],
      async *run() {
        yield { type: "event", parts: [{ function_call: { id: "c1", name: "update_state", args: {} } }] };
        throw new Error("model endpoint unreachable");
      },
    };
    const task = await turn(f, "hi", broken);
    expect(task.status.state).toBe("failed");
    expect(task.status.message?.parts).toEqual([{ kind: "text", text: "model endpoint unreachable" }]);
    // The call it emitted before failing is kept, then the failure.
    const [, call, failure] = await events(f);
    expect(call.content?.parts?.[0].function_call).toMatchObject({ id: "c1", name: "update_state" });
    expect(failure).toMatchObject({
      error_code: "AGENT_ERROR",
      error_message: "model endpoint unreachable",
      turn_complete: true,
    });
    expect(await state(f)).toEqual({});
    expect(await running(f)).toBeNull();
  });
});

describe("demo agent: quoting", () => {
  it("keeps a code fence whole, and drops one pair of plain quotes", () => {
    const fence = "```ts\nconst x = 1;\n```";
    expect(parseIntent(`save file code.md with content ${fence}`)).toMatchObject({ args: { content: fence } });
    expect(parseIntent("save file a.txt with content `hi`")).toMatchObject({ args: { content: "hi" } });
    expect(parseIntent("set name to 'Ada'")).toMatchObject({ args: { value: "Ada" } });
  });
});
