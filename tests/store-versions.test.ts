import { describe, expect, it } from "vitest";
import { forkSession, getSession, listEvents, listTasks, listVersions, rewindSession, switchSession } from "@/lib/db/queries";
import { event, type Fixture, fixture, holdTurn, referenceChat, sendTurn } from "./helpers";
import { tableRows } from "./support/db";

const send = sendTurn;

const head = async (f: Fixture) => {
  const users = (await listEvents(f.userId, f.sessionId, "effective")).items.filter((e) => e.author === "user");
  return users.map((e) => e.invocation_id);
};
const step = async (f: Fixture) => (await getSession(f.userId, f.sessionId)).state.step;
const siblings = async (f: Fixture) =>
  Object.fromEntries(
    (await listTasks(f.userId, f.sessionId)).items.map((t) => [t.metadata?.kagent_invocation_id, t.metadata?.retrace_siblings]),
  );

describe("versions: the chat as a tree", () => {
  it("the reference vector: siblings, and each switch's marker, head and state", async () => {
    const { f, m1, m2 } = await referenceChat();
    expect((await siblings(f)).B3).toEqual({ index: 3, invocation_ids: ["B", "B2", "B3"], regenerations: false });
    expect((await siblings(f)).A).toBeUndefined();

    const m3 = await switchSession(f.userId, f.sessionId, "B");
    expect(m3.event?.actions?.rewind_before_invocation_id).toBe(m1);
    expect(m3.event?.custom_metadata).toEqual({ retrace_reason: "switch" });
    expect(await head(f)).toEqual(["A", "B"]);
    expect(await step(f)).toBe("B");
    expect((await siblings(f)).B).toEqual({ index: 1, invocation_ids: ["B", "B2", "B3"], regenerations: false });

    const m4 = await switchSession(f.userId, f.sessionId, "B3");
    expect(m4.event?.actions?.rewind_before_invocation_id).toBe(m3.event?.invocation_id);
    expect(await head(f)).toEqual(["A", "B3"]);
    expect(await step(f)).toBe("B3");

    const m5 = await switchSession(f.userId, f.sessionId, "B2");
    expect(m5.event?.actions?.rewind_before_invocation_id).toBe(m2);
    expect(await head(f)).toEqual(["A", "B2"]);
    expect(await step(f)).toBe("B2");
    expect(m5.session.state).toEqual({ step: "B2" });
  });

  it("switching to what the chat shows is a no-op; a marker's own id or an unknown id is 400 and writes nothing", async () => {
    const { f, m1 } = await referenceChat();
    const before = await tableRows();
    expect(await switchSession(f.userId, f.sessionId, "B3")).toMatchObject({ event: null, session: { state: { step: "B3" } } });
    expect((await switchSession(f.userId, f.sessionId, "A")).event).toBeNull();
    await expect(switchSession(f.userId, f.sessionId, m1)).rejects.toMatchObject({ status: 400, code: "invocation_not_found" });
    await expect(switchSession(f.userId, f.sessionId, "nope")).rejects.toMatchObject({ status: 400, code: "invocation_not_found" });
    expect(await tableRows()).toEqual(before);
  });

  it("404 for another user, 409 while a turn runs", async () => {
    const { f } = await referenceChat();
    const other = await fixture();
    await expect(switchSession(other.userId, f.sessionId, "B")).rejects.toMatchObject({ status: 404 });
    const turn = await holdTurn(f);
    await expect(switchSession(f.userId, f.sessionId, "B")).rejects.toMatchObject({ status: 409, code: "session_busy" });
    await expect(listVersions(other.userId, f.sessionId)).rejects.toMatchObject({ status: 404 });
    await turn.stop();
  });

  it("regenerations of one message are flagged so the pager can sit on the reply", async () => {
    const f = await fixture();
    await send(f, "A");
    await send(f, "R1", "same words");
    await rewindSession(f.userId, f.sessionId, "R1", "regenerate");
    await send(f, "R2", "same words");
    expect((await siblings(f)).R2).toEqual({ index: 2, invocation_ids: ["R1", "R2"], regenerations: true });
  });

  it("lists every head newest first, each restorable by rewinding before its marker (undoable)", async () => {
    const { f, m1, m2 } = await referenceChat();
    const versions = await listVersions(f.userId, f.sessionId);
    expect(versions.map((v) => [v.marker_invocation_id, v.turns, v.last_user_text])).toEqual([
      [null, 2, "B2"],
      [m2, 2, "B2"],
      [m1, 2, "B"],
    ]);
    const restored = await rewindSession(f.userId, f.sessionId, m1, "restore");
    expect(await head(f)).toEqual(["A", "B"]);
    expect(await step(f)).toBe("B");
    await rewindSession(f.userId, f.sessionId, restored.event.invocation_id, "undo");
    expect(await head(f)).toEqual(["A", "B3"]);
    expect((await listVersions(f.userId, f.sessionId)).map((v) => v.turns)).toEqual([2, 2, 2, 2, 2]);
  });

  it("tells heads apart: each one's last turn, its place among that turn's versions, and why the head ended", async () => {
    const { f, m1, m2 } = await referenceChat();
    const m3 = (await switchSession(f.userId, f.sessionId, "B")).event?.invocation_id;
    const versions = await listVersions(f.userId, f.sessionId);
    expect(versions.map((v) => [v.marker_invocation_id, v.last_invocation_id, v.version, v.reason, v.last_user_text])).toEqual([
      [null, "B", { index: 1, count: 3 }, null, "B"],
      [m3, "B3", { index: 3, count: 3 }, "switch", "B2"],
      [m2, "B2", { index: 2, count: 3 }, "regenerate", "B2"],
      [m1, "B", { index: 1, count: 3 }, "edit", "B"],
    ]);
    const empty = await fixture();
    await send(empty, "X");
    const undone = (await rewindSession(empty.userId, empty.sessionId, "X")).event.invocation_id;
    expect(await listVersions(empty.userId, empty.sessionId)).toMatchObject([
      { marker_invocation_id: null, turns: 0, last_invocation_id: null, last_user_text: null, version: null, reason: null },
      { marker_invocation_id: undone, turns: 1, last_invocation_id: "X", version: null, reason: "rewind" },
    ]);
  });

  it("labels versions whose invocation ids hold quotes, braces, commas or backslashes", async () => {
    const f = await fixture();
    await f.append(event('a "b"', { author: "user", text: "one" }));
    await f.append(event("{c,d}", { author: "user", text: "two" }));
    const { event: marker } = await rewindSession(f.userId, f.sessionId, "{c,d}");
    await f.append(event("e\\f NULL", { author: "user", text: "three" }));
    const versions = await listVersions(f.userId, f.sessionId);
    expect(versions.map((v) => [v.marker_invocation_id, v.last_user_text])).toEqual([
      [null, "three"],
      [marker.invocation_id, "two"],
    ]);
  });

  it("switches correctly when hidden ranges sit inside hidden ranges", async () => {
    const f = await fixture();
    for (const id of ["A", "B", "C"]) await send(f, id);
    await rewindSession(f.userId, f.sessionId, "C");
    await send(f, "D");
    await rewindSession(f.userId, f.sessionId, "B");
    await send(f, "E");
    expect(await head(f)).toEqual(["A", "E"]);
    await switchSession(f.userId, f.sessionId, "C");
    expect(await head(f)).toEqual(["A", "B", "C"]);
    expect(await step(f)).toBe("C");
    await switchSession(f.userId, f.sessionId, "D");
    expect(await head(f)).toEqual(["A", "B", "D"]);
    await switchSession(f.userId, f.sessionId, "E");
    expect(await head(f)).toEqual(["A", "E"]);
    expect(await step(f)).toBe("E");
    expect((await siblings(f)).E).toEqual({ index: 2, invocation_ids: ["B", "E"], regenerations: false });
  });

  it("a fork keeps the versions that existed before its boundary", async () => {
    const { f } = await referenceChat();
    const fork = await forkSession(f.userId, f.sessionId);
    const inFork = { ...f, sessionId: fork.id };
    expect((await siblings(inFork)).B3).toMatchObject({ invocation_ids: ["B", "B2", "B3"] });
    await switchSession(f.userId, fork.id, "B");
    expect(await head(inFork)).toEqual(["A", "B"]);
    expect(await head(f)).toEqual(["A", "B3"]);
    // History reads the turns the fork shares with its source like its own.
    expect((await listVersions(f.userId, fork.id)).map((v) => [v.last_invocation_id, v.version?.index, v.reason])).toEqual([
      ["B", 1, null],
      ["B3", 3, "switch"],
      ["B2", 2, "regenerate"],
      ["B", 1, "edit"],
    ]);
  });
});
