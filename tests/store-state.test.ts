import { afterEach, describe, expect, it } from "vitest";
import {
  appendEvents,
  createSession,
  createUser,
  currentState,
  deleteSession,
  forkSession,
  getSession,
  getTask,
  listArtifacts,
  listSessions,
  loadArtifact,
  rewindSession,
  saveArtifact,
  saveTask,
  setAppState,
} from "@/lib/db/queries";
import { completedTask, event, fixture } from "./helpers";
import { tableRows } from "./support/db";

afterEach(() => {
  delete process.env.RETRACE_MAX_SESSIONS;
  delete process.env.RETRACE_MAX_STORED_BYTES;
});

describe("state scopes", () => {
  it("session keys stay in the session; user: keys are shared by the user's chats of the agent; temp: keys vanish", async () => {
    const a = await fixture();
    await a.append(event("i1", { state: { color: "red", "user:name": "Ann", "temp:scratch": 1 } }));
    const sameUser = await createSession(a.userId, {});
    const otherAgent = await createSession(a.userId, { agent: "other" });
    const otherUser = await createSession(await createUser(), {});
    expect((await getSession(a.userId, a.sessionId)).state).toEqual({ color: "red", "user:name": "Ann" });
    expect(sameUser.state).toEqual({ "user:name": "Ann" });
    expect(otherAgent.state).toEqual({});
    expect(otherUser.state).toEqual({});
  });

  it("app: state comes only from the operator and reaches every user of the agent", async () => {
    const a = await fixture();
    const b = await fixture();
    expect(await setAppState("demo", { "app:motd": "hello", "app:gone": 1 })).toEqual({ "app:motd": "hello", "app:gone": 1 });
    await setAppState("demo", { "app:gone": null });
    expect((await getSession(a.userId, a.sessionId)).state).toEqual({ "app:motd": "hello" });
    expect((await getSession(b.userId, b.sessionId)).state).toEqual({ "app:motd": "hello" });
  });

  it("a user's write of app: state is refused whole (403 forbidden_scope) and writes nothing", async () => {
    const a = await fixture();
    const before = await tableRows();
    const batch = [event("i1", { state: { color: "red" } }), event("i1", { state: { "app:motd": "pwned" } })];
    await expect(a.append(...batch)).rejects.toMatchObject({ status: 403, code: "forbidden_scope" });
    await expect(createSession(a.userId, { state: { "app:x": 1 } })).rejects.toMatchObject({ status: 403, code: "forbidden_scope" });
    expect(await tableRows()).toEqual(before);
  });

  it("user: keys of one user never reach another", async () => {
    const a = await fixture();
    const b = await fixture();
    await a.append(event("i1", { state: { "user:secret": "a's" } }));
    expect((await getSession(b.userId, b.sessionId)).state).toEqual({});
    expect((await createSession(b.userId)).state).toEqual({});
  });

  it("null deletes a key in every scope", async () => {
    const a = await fixture();
    await a.append(event("i1", { state: { color: "red", "user:y": 2 } }));
    await a.append(event("i2", { state: { color: null, "user:y": null } }));
    expect((await getSession(a.userId, a.sessionId)).state).toEqual({});
  });

  it("initial state is split by scope at creation; null means no such key", async () => {
    const userId = await createUser();
    const s = await createSession(userId, { state: { k: 1, gone: null, "user:u": true, "temp:t": 0 } });
    expect(s.state).toEqual({ k: 1, "user:u": true });
  });

  it("a turn's tools read the same merged state in one statement, and only in the owner's chat", async () => {
    const a = await fixture({ toString: "initial" });
    await setAppState("demo", { "app:motd": "hello" });
    await a.append(event("i1", { state: { color: "red", "user:name": "Ann", ["__proto__"]: { polluted: true } } }));
    const merged = await currentState(a.userId, a.sessionId);
    expect(JSON.stringify(merged)).toBe(JSON.stringify((await getSession(a.userId, a.sessionId)).state));
    expect(merged).toMatchObject({ toString: "initial", color: "red", "user:name": "Ann", "app:motd": "hello" });
    const stranger = await createUser();
    await expect(currentState(stranger, a.sessionId)).rejects.toMatchObject({ status: 404 });
    await expect(currentState(a.userId, crypto.randomUUID())).rejects.toMatchObject({ status: 404 });
  });

  it("state keys are data: constructor, toString and __proto__ are kept, restored and removed like any key", async () => {
    const a = await fixture({ toString: "initial" });
    await a.append(event("i1", { author: "user", text: "one", state: { constructor: 1 } }));
    await a.append(event("i2", { author: "user", text: "two", state: { ["__proto__"]: { polluted: true }, toString: "later" } }));
    expect(JSON.stringify((await getSession(a.userId, a.sessionId)).state)).toBe(
      '{"toString":"later","constructor":1,"__proto__":{"polluted":true}}',
    );
    const fork = await forkSession(a.userId, a.sessionId, { invocationId: "i2" });
    const beforeTwo = await rewindSession(a.userId, a.sessionId, "i2");
    expect(JSON.stringify(fork.state)).toBe('{"toString":"initial","constructor":1}');
    expect(JSON.stringify(beforeTwo.session.state)).toBe('{"toString":"initial","constructor":1}');
    const beforeOne = await rewindSession(a.userId, a.sessionId, "i1");
    expect(JSON.stringify(beforeOne.session.state)).toBe('{"toString":"initial"}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("the chat list", () => {
  it("is most recently active first, a total order that follows write order even within one millisecond", async () => {
    const userId = await createUser();
    const chats = [];
    for (let i = 0; i < 20; i++) chats.push(await createSession(userId, { name: `chat ${i}` }));
    const touched = [7, 3, 19, 0, 7, 12];
    for (const i of touched) await appendEvents(userId, chats[i].id, [{ ...event(`i${i}`), timestamp: 1 }]);
    const names = (await listSessions(userId)).items.map((s) => s.name);
    expect(names.slice(0, 5)).toEqual(["chat 12", "chat 7", "chat 0", "chat 19", "chat 3"]);
    expect(names.slice(5)).toEqual(
      Array.from({ length: 20 }, (_, i) => `chat ${19 - i}`).filter(
        (n) => !["chat 7", "chat 12", "chat 0", "chat 19", "chat 3"].includes(n),
      ),
    );
  });

  it("pages newest first with a cursor, and refuses a cursor it did not give out", async () => {
    const userId = await createUser();
    for (let i = 0; i < 7; i++) await createSession(userId, { name: `chat ${i}` });
    const first = await listSessions(userId, { limit: 3 });
    expect(first.items.map((s) => s.name)).toEqual(["chat 6", "chat 5", "chat 4"]);
    const second = await listSessions(userId, { limit: 3, before: first.nextBefore ?? undefined });
    expect(second.items.map((s) => s.name)).toEqual(["chat 3", "chat 2", "chat 1"]);
    const last = await listSessions(userId, { limit: 3, before: second.nextBefore ?? undefined });
    expect(last).toEqual({ items: [expect.objectContaining({ name: "chat 0" })], nextBefore: null });
    await expect(listSessions(userId, { limit: 3, before: "bogus" })).rejects.toMatchObject({ status: 400 });
  });
});

describe("quotas", () => {
  it("chats per user, forks included: 429 quota_exceeded, nothing written", async () => {
    process.env.RETRACE_MAX_SESSIONS = "2";
    const a = await fixture();
    await forkSession(a.userId, a.sessionId);
    const before = await tableRows();
    await expect(createSession(a.userId)).rejects.toMatchObject({ status: 429, code: "quota_exceeded" });
    await expect(forkSession(a.userId, a.sessionId)).rejects.toMatchObject({ status: 429, code: "quota_exceeded" });
    expect(await tableRows()).toEqual(before);
    expect((await createSession(await createUser())).name).toBe("New chat");
  });

  it("stored bytes per user count events, files and forks, and come back when a chat is deleted", async () => {
    // A chat's own row is charged too (state, name, ~900 bytes); the rest is what each step stores.
    process.env.RETRACE_MAX_STORED_BYTES = "6000";
    const a = await fixture();
    await a.save("big.txt", "x".repeat(2500));
    await a.append(event("i1", { text: "y".repeat(500) }));
    const written = await tableRows();
    await expect(a.append(event("i2", { text: "w".repeat(3000) }))).rejects.toMatchObject({ code: "quota_exceeded" });
    expect(await tableRows()).toEqual(written);
    await expect(forkSession(a.userId, a.sessionId)).rejects.toMatchObject({ code: "quota_exceeded" });
    await expect(a.save("more.txt", "z".repeat(3000))).rejects.toMatchObject({ code: "quota_exceeded" });
    expect((await listArtifacts(a.userId, a.sessionId)).map((f) => f.filename)).toEqual(["big.txt"]);
    const other = await createSession(a.userId);
    await deleteSession(a.userId, a.sessionId);
    expect(await saveArtifact(a.userId, other.id, { filename: "more.txt", mimeType: "text/plain", data: Buffer.alloc(2000) })).toEqual({
      filename: "more.txt",
      version: 0,
    });
  });
});

describe("tasks", () => {
  it("a task is saved only in the caller's own chat, on an invocation that has begun; a refusal changes nothing", async () => {
    const a = await fixture();
    await a.append(event("i1", { author: "user", text: "hi" }));
    const stranger = await fixture();
    const before = await tableRows();
    await expect(saveTask(stranger.userId, a.sessionId, completedTask(a.sessionId, "i1"))).rejects.toMatchObject({ status: 404 });
    await expect(saveTask(a.userId, a.sessionId, completedTask(a.sessionId, "i9"))).rejects.toMatchObject({ status: 400 });
    expect(await tableRows()).toEqual(before);
    await saveTask(a.userId, a.sessionId, completedTask(a.sessionId, "i1"));
    expect((await getTask(a.userId, "task-i1")).status.state).toBe("completed");
  });
});

describe("artifacts", () => {
  it("every save appends a version; latest and numbered versions load", async () => {
    const a = await fixture();
    expect(await a.save("notes.txt", "one")).toEqual({ filename: "notes.txt", version: 0 });
    expect(await a.save("notes.txt", "two")).toEqual({ filename: "notes.txt", version: 1 });
    expect((await loadArtifact(a.userId, a.sessionId, "notes.txt")).data.toString()).toBe("two");
    expect((await loadArtifact(a.userId, a.sessionId, "notes.txt", 0)).data.toString()).toBe("one");
    expect(await listArtifacts(a.userId, a.sessionId)).toEqual([
      { filename: "notes.txt", version: 1, mime_type: "text/plain", size: 3, restored_from: null },
    ]);
    await expect(loadArtifact(a.userId, a.sessionId, "notes.txt", 7)).rejects.toThrow("Artifact not found");
  });

  it("user: files are shared by the user's sessions of the agent, not by others", async () => {
    const a = await fixture();
    await a.save("user:profile.md", "me");
    const sibling = await createSession(a.userId, {});
    expect((await loadArtifact(a.userId, sibling.id, "user:profile.md")).data.toString()).toBe("me");
    const stranger = await fixture();
    await expect(loadArtifact(stranger.userId, stranger.sessionId, "user:profile.md")).rejects.toThrow();
  });

  it("rejects path traversal, control and bidi-override characters in filenames", async () => {
    const a = await fixture();
    for (const bad of ["../x", "a/b", "..", "a\\b", "x\u0000y", "", "user:", "evil\u202Etxt.exe", "tab\there", "new\nline"]) {
      await expect(saveArtifact(a.userId, a.sessionId, { filename: bad, mimeType: "text/plain", data: Buffer.from("x") })).rejects.toThrow(
        "Invalid artifact filename",
      );
    }
  });

  it("file names are data: a file called constructor or __proto__ rewinds like any other", async () => {
    const a = await fixture();
    await a.append(event("i1", { author: "user", text: "first" }));
    for (const name of ["constructor", "__proto__", "toString"]) {
      const saved = await a.save(name, `${name} content`);
      await a.append(event("i2", { artifacts: { [name]: saved.version } }));
    }
    await rewindSession(a.userId, a.sessionId, "i2");
    expect(await listArtifacts(a.userId, a.sessionId)).toEqual([]);
  });

  it("an artifact_delta naming a missing version rejects the whole batch", async () => {
    const a = await fixture();
    await a.save("f", "x");
    await expect(
      appendEvents(a.userId, a.sessionId, [event("i1", { state: { k: 1 } }), event("i1", { artifacts: { f: 3 } })]),
    ).rejects.toThrow("Artifact f has no version 3");
    expect((await getSession(a.userId, a.sessionId)).state).toEqual({});
  });
});
