import { afterEach, describe, expect, it } from "vitest";
import { messageText } from "@/lib/a2a/convert";
import type { Message } from "@/lib/a2a/types";
import { isBusy } from "@/lib/agent/busy";
import { parseIntent } from "@/lib/agent/demo-agent";
import { getAgent, listAgents } from "@/lib/agent/registry";
import { cancelTurn, startTurn, type TurnUpdate, watchTurn } from "@/lib/agent/runtime";
import type { Agent } from "@/lib/agent/types";
import { getSession, listArtifacts, listEvents, listTasks, loadArtifact, rewindSession } from "@/lib/db/queries";
import { SessionBusyError } from "@/lib/errors";
import { fixture } from "./helpers";

const demo = getAgent("demo");

afterEach(() => {
  delete process.env.DEMO_WORD_DELAY_MS;
});

async function turn(f: ReturnType<typeof fixture>, text: string, agent: Agent = demo) {
  process.env.DEMO_WORD_DELAY_MS ??= "0";
  return startTurn({ userId: f.userId, sessionId: f.sessionId, agent, text }).done;
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
    const f = fixture();
    const task = await turn(f, "set color to red");
    const events = listEvents(f.userId, f.sessionId, "all");
    expect(events.map((e) => e.author)).toEqual(["user", "demo", "demo", "demo"]);
    expect(new Set(events.map((e) => e.invocation_id)).size).toBe(1);
    expect(events[0].invocation_id).toMatch(/^e-[0-9a-f-]{36}$/);
    expect(events[1].content?.parts?.[0].function_call).toMatchObject({ name: "update_state", args: { key: "color", value: "red" } });
    expect(events[2].actions?.state_delta).toEqual({ color: "red" });
    expect(events.slice(1).map((e) => [e.partial, e.turn_complete ?? null])).toEqual([
      [false, null],
      [false, null],
      [false, true],
    ]);
    expect(getSession(f.userId, f.sessionId).state).toEqual({ color: "red" });

    expect(task.status.state).toBe("completed");
    expect(task.metadata?.kagent_invocation_id).toBe(events[0].invocation_id);
    expect(task.history!.map((m) => m.metadata?.kagent_event_id)).toEqual(events.map((e) => e.id));
    expect(listTasks(f.userId, f.sessionId)).toEqual([task]);
    expect(reply(await turn(f, "what is color?"))).toBe("**color** is `red`.");
  });

  it("saves and loads files, and a rewound file is not found", async () => {
    const f = fixture();
    const saved = await turn(f, "save file notes.txt with content hello");
    expect(saved.history![2].metadata?.kagent_artifact_delta).toEqual({ "notes.txt": 0 });
    expect(loadArtifact(f.userId, f.sessionId, "notes.txt").data.toString()).toBe("hello");
    expect(reply(await turn(f, "load file notes.txt"))).toContain("hello");

    rewindSession(f.userId, f.sessionId, saved.metadata!.kagent_invocation_id as string);
    expect(listArtifacts(f.userId, f.sessionId)).toEqual([]);
    expect(reply(await turn(f, "load file notes.txt"))).toMatch(/couldn't find \*\*notes\.txt\*\*/);
  });

  it("recaps only the effective history", async () => {
    const f = fixture();
    await turn(f, "first");
    const second = await turn(f, "second");
    await turn(f, "third");
    expect(reply(await turn(f, "recap"))).toBe("Here is what you said so far:\n\n1. first\n2. second\n3. third");
    rewindSession(f.userId, f.sessionId, second.metadata!.kagent_invocation_id as string);
    expect(reply(await turn(f, "recap"))).toBe("Here is what you said so far:\n\n1. first");
  });

  it("holds the session busy for the whole turn", async () => {
    const f = fixture();
    process.env.DEMO_WORD_DELAY_MS = "5";
    const running = startTurn({ userId: f.userId, sessionId: f.sessionId, agent: demo, text: "hi" });
    expect(isBusy(f.sessionId)).toBe(true);
    expect(() => startTurn({ userId: f.userId, sessionId: f.sessionId, agent: demo, text: "again" })).toThrow(SessionBusyError);
    await running.done;
    expect(isBusy(f.sessionId)).toBe(false);
  });

  it("cancel keeps what streamed so far as an interrupted final event", async () => {
    const f = fixture();
    process.env.DEMO_WORD_DELAY_MS = "20";
    const running = startTurn({ userId: f.userId, sessionId: f.sessionId, agent: demo, text: "hi" });
    let streamed = "";
    for await (const update of running.updates) {
      if (update.kind !== "partial") continue;
      streamed += update.message.parts[0].kind === "text" ? update.message.parts[0].text : "";
      if (streamed.split(" ").length > 3) break;
    }
    const task = await cancelTurn(running.taskId);
    expect(task?.status.state).toBe("canceled");
    const last = listEvents(f.userId, f.sessionId, "all").at(-1)!;
    expect(last).toMatchObject({ interrupted: true, turn_complete: true, content: { parts: [{ text: streamed }] } });
    expect(task?.history?.at(-1)?.metadata?.kagent_interrupted).toBe(true);
    expect(await cancelTurn(running.taskId)).toBeNull();
    expect(isBusy(f.sessionId)).toBe(false);
  });

  it("a late watcher gets the task, the text streamed so far, then the rest of the turn", async () => {
    const f = fixture();
    process.env.DEMO_WORD_DELAY_MS = "10";
    const running = startTurn({ userId: f.userId, sessionId: f.sessionId, agent: demo, text: "hi" });
    let streamed = "";
    for await (const update of running.updates) {
      if (update.kind !== "partial") continue;
      streamed += messageText(update.message);
      if (streamed.split(" ").length > 3) break;
    }
    const watched = watchTurn(running.taskId);
    expect(watched).not.toBeNull();
    const seen: TurnUpdate[] = [];
    for await (const update of watched!) seen.push(update);
    const final = await running.done;
    expect(seen[0]).toMatchObject({ kind: "task", task: { id: running.taskId } });
    expect(seen[1]).toMatchObject({ kind: "partial" });
    const text = seen
      .filter((u) => u.kind === "partial")
      .map((u) => messageText((u as { message: Message }).message))
      .join("");
    expect(text).toBe(messageText(final.history!.at(-1)!));
    expect(seen.at(-1)).toEqual({ kind: "done", task: final });
    expect(watchTurn(running.taskId)).toBeNull();
  });

  it("an aborted request signal cancels the turn", async () => {
    const f = fixture();
    process.env.DEMO_WORD_DELAY_MS = "20";
    const client = new AbortController();
    const running = startTurn({ userId: f.userId, sessionId: f.sessionId, agent: demo, text: "hi", signal: client.signal });
    setTimeout(() => client.abort(), 50);
    expect((await running.done).status.state).toBe("canceled");
  });

  it("an agent failure fails the task with its message and stores an error event", async () => {
    const f = fixture();
    const broken: Agent = {
      name: "demo",
      description: "",
      async *run() {
        yield { type: "event", parts: [{ function_call: { id: "c1", name: "update_state", args: {} } }] };
        throw new Error("model endpoint unreachable");
      },
    };
    const task = await turn(f, "hi", broken);
    expect(task.status.state).toBe("failed");
    expect(task.status.message?.parts).toEqual([{ kind: "text", text: "model endpoint unreachable" }]);
    const events = listEvents(f.userId, f.sessionId, "all");
    expect(events.at(-1)).toMatchObject({ error_code: "AGENT_ERROR", error_message: "model endpoint unreachable", turn_complete: true });
    expect(getSession(f.userId, f.sessionId).state).toEqual({});
    expect(isBusy(f.sessionId)).toBe(false);
  });
});
