import { describe, expect, it } from "vitest";
import { appendEvents, getSession, listArtifacts, listEvents, listTasks, loadArtifact, rewindSession, saveTask } from "@/lib/db/queries";
import { event, fixture, holdTurn, texts } from "./helpers";
import { tableRows } from "./support/db";

/** ADK Python's rewind test set-up (T1/T2). */
async function adkSetup() {
  const f = await fixture();
  await f.save("f1", "f1v0");
  await f.append(event("inv1", { author: "user", text: "one", state: { k1: "v1" }, artifacts: { f1: 0 } }));
  await f.save("f1", "f1v1");
  await f.save("f2", "f2v0");
  await f.append(event("inv2", { author: "user", text: "two", state: { k1: "v2", k2: "v2" }, artifacts: { f1: 1, f2: 0 } }));
  await f.append(event("inv3", { author: "user", text: "three", state: { k2: "v3" } }));
  return f;
}

const fileText = async (userId: string, sessionId: string, name: string, version?: number) =>
  (await loadArtifact(userId, sessionId, name, version)).data.toString();

const effective = async (userId: string, sessionId: string) => texts((await listEvents(userId, sessionId, "effective")).items);

describe("rewind", () => {
  it("T1: rewind before inv2 restores state and files", async () => {
    const { userId, sessionId } = await adkSetup();
    const { event: marker, session } = await rewindSession(userId, sessionId, "inv2");
    expect(session.state).toEqual({ k1: "v1" });
    expect(await fileText(userId, sessionId, "f1")).toBe("f1v0");
    await expect(loadArtifact(userId, sessionId, "f2")).rejects.toThrow("Artifact not found: f2");
    expect((await listArtifacts(userId, sessionId)).map((a) => a.filename)).toEqual(["f1"]);
    expect(await fileText(userId, sessionId, "f1", 1)).toBe("f1v1");
    expect(await effective(userId, sessionId)).toEqual(["one"]);
    expect(marker.author).toBe("user");
    expect(marker.invocation_id).toMatch(/^e-[0-9a-f-]{36}$/);
    expect(marker.content).toBeUndefined();
    expect(marker.actions).toMatchObject({
      rewind_before_invocation_id: "inv2",
      state_delta: { k1: "v1", k2: null },
      artifact_delta: { f1: 2, f2: 1 },
    });
  });

  it("T2: rewind before inv3 appends a marker even when files are unchanged", async () => {
    const { userId, sessionId } = await adkSetup();
    const { event: marker, session } = await rewindSession(userId, sessionId, "inv3");
    expect(session.state).toEqual({ k1: "v2", k2: "v2" });
    expect(await fileText(userId, sessionId, "f1")).toBe("f1v1");
    expect(await fileText(userId, sessionId, "f2")).toBe("f2v0");
    expect(marker.actions?.artifact_delta).toEqual({});
    expect((await listEvents(userId, sessionId)).items.at(-1)?.id).toBe(marker.id);
    expect(await effective(userId, sessionId)).toEqual(["one", "two"]);
  });

  it("unknown invocation: 400 invocation_not_found, nothing written", async () => {
    const { userId, sessionId } = await adkSetup();
    const before = await tableRows();
    await expect(rewindSession(userId, sessionId, "nope")).rejects.toMatchObject({
      message: "Invocation ID not found: nope",
      code: "invocation_not_found",
      status: 400,
    });
    expect(await tableRows()).toEqual(before);
    expect((await getSession(userId, sessionId)).state).toEqual({ k1: "v2", k2: "v3" });
  });

  it("another user's session is not found, and nothing changes", async () => {
    const { sessionId } = await adkSetup();
    const other = await fixture();
    const before = await tableRows();
    await expect(rewindSession(other.userId, sessionId, "inv2")).rejects.toThrow("Session not found");
    expect(await tableRows()).toEqual(before);
  });

  it("a running turn: 409 session_busy for the owner, 404 for anyone else, and it works once the turn ends", async () => {
    const f = await adkSetup();
    const other = await fixture();
    const turn = await holdTurn(f);
    await expect(rewindSession(f.userId, f.sessionId, "inv2")).rejects.toMatchObject({ status: 409, code: "session_busy" });
    await expect(rewindSession(other.userId, f.sessionId, "inv2")).rejects.toMatchObject({ status: 404 });
    await turn.stop();
    await expect(rewindSession(f.userId, f.sessionId, "inv2")).resolves.toBeTruthy();
  });

  it("undo: rewinding before the marker restores state, files and turns", async () => {
    const { userId, sessionId } = await adkSetup();
    const { event: marker } = await rewindSession(userId, sessionId, "inv2");
    const { session } = await rewindSession(userId, sessionId, marker.invocation_id);
    expect(session.state).toEqual({ k1: "v2", k2: "v3" });
    expect(await fileText(userId, sessionId, "f1")).toBe("f1v1");
    expect(await fileText(userId, sessionId, "f2")).toBe("f2v0");
    expect((await listArtifacts(userId, sessionId)).map((a) => `${a.filename}@${a.version}`)).toEqual(["f1@3", "f2@2"]);
    expect(await effective(userId, sessionId)).toEqual(["one", "two", "three"]);
  });

  it("stacked rewinds and new turns in between", async () => {
    const f = await adkSetup();
    await rewindSession(f.userId, f.sessionId, "inv3");
    await f.append(event("inv4", { author: "user", text: "four", state: { k3: "x" } }));
    const { session } = await rewindSession(f.userId, f.sessionId, "inv2");
    expect(session.state).toEqual({ k1: "v1" });
    expect(await effective(f.userId, f.sessionId)).toEqual(["one"]);
    await f.append(event("inv5", { author: "user", text: "five" }));
    expect(await effective(f.userId, f.sessionId)).toEqual(["one", "five"]);
  });

  it("rewinding to an invocation an earlier rewind already hid", async () => {
    const f = await adkSetup();
    await rewindSession(f.userId, f.sessionId, "inv2");
    const { session } = await rewindSession(f.userId, f.sessionId, "inv3");
    // State just before inv3 in the raw log: inv1 and inv2 applied.
    expect(session.state).toEqual({ k1: "v2", k2: "v2" });
    expect(await effective(f.userId, f.sessionId)).toEqual(["one", "two"]);
    expect(await fileText(f.userId, f.sessionId, "f2")).toBe("f2v0");
  });

  it("rewinding the first invocation returns to the initial state", async () => {
    const f = await fixture({ mode: "formal", list: [1, 2] });
    await f.append(event("inv1", { author: "user", text: "one", state: { mode: "casual", other: 1 } }));
    const { session } = await rewindSession(f.userId, f.sessionId, "inv1");
    // Keys given at creation are restored, not nulled (ADK Python issue #4933).
    expect(session.state).toEqual({ mode: "formal", list: [1, 2] });
    expect((await listEvents(f.userId, f.sessionId, "effective")).items).toEqual([]);
  });

  it("deep equality: structurally equal values produce no delta", async () => {
    const f = await fixture({ obj: { a: [1, { b: 2 }] } });
    await f.append(event("inv1", { author: "user", text: "one", state: { obj: { a: [1, { b: 2 }] } } }));
    await f.append(event("inv2", { author: "user", text: "two", state: { obj: { a: [1, { b: 3 }] } } }));
    const { event: marker } = await rewindSession(f.userId, f.sessionId, "inv2");
    expect(marker.actions?.state_delta).toEqual({ obj: { a: [1, { b: 2 }] } });
    const second = await rewindSession(f.userId, f.sessionId, "inv2");
    expect(second.event.actions?.state_delta).toEqual({});
  });

  it("user: state and user: files are not restored; temp: is never stored", async () => {
    const f = await fixture();
    await f.save("user:profile.txt", "p0");
    await f.append(event("inv1", { author: "user", text: "one", state: { k: 1, "user:u": 1 } }));
    await f.save("user:profile.txt", "p1");
    await f.append(
      event("inv2", { author: "user", text: "two", state: { k: 2, "user:u": 2, "temp:t": 9 }, artifacts: { "user:profile.txt": 1 } }),
    );
    const { event: marker, session } = await rewindSession(f.userId, f.sessionId, "inv2");
    expect(session.state).toEqual({ k: 1, "user:u": 2 });
    expect(marker.actions?.artifact_delta).toEqual({});
    expect(await fileText(f.userId, f.sessionId, "user:profile.txt")).toBe("p1");
    expect(JSON.stringify((await listEvents(f.userId, f.sessionId)).items)).not.toContain("temp:t");
  });

  it("a rewind crossing state checkpoints replays correctly", async () => {
    const f = await fixture();
    for (let batch = 0; batch < 7; batch++) {
      const events = Array.from({ length: 100 }, (_, j) => {
        const i = batch * 100 + j + 1;
        return event(`inv${i}`, { author: "user", text: `q${i}`, state: { n: i, [`k${i % 7}`]: i } });
      });
      await f.append(...events);
    }
    const { session } = await rewindSession(f.userId, f.sessionId, "inv600");
    expect(session.state.n).toBe(599);
    expect(session.state.k4).toBe(599);
    expect(session.state.k5).toBe(593);
  });

  it("tasks follow the effective history; include_rewound flags hidden ones", async () => {
    const f = await fixture();
    for (const inv of ["inv1", "inv2", "inv3"]) {
      await f.append(event(inv, { author: "user", text: inv }));
      await saveTask(f.userId, f.sessionId, {
        kind: "task",
        id: `task-${inv}`,
        contextId: f.sessionId,
        status: { state: "completed" },
        metadata: { kagent_invocation_id: inv },
      });
    }
    const { event: marker } = await rewindSession(f.userId, f.sessionId, "inv2");
    expect((await listTasks(f.userId, f.sessionId)).items.map((t) => t.id)).toEqual(["task-inv1"]);
    const all = (await listTasks(f.userId, f.sessionId, { includeRewound: true })).items;
    expect(all.map((t) => [t.id, t.metadata?.rewound ?? false, t.metadata?.rewound_by])).toEqual([
      ["task-inv1", false, undefined],
      ["task-inv2", true, marker.invocation_id],
      ["task-inv3", true, marker.invocation_id],
    ]);
    expect(all[1].history?.map((m) => m.parts)).toEqual([[{ kind: "text", text: "inv2" }]]);
  });

  it("events appended in a burst keep their order despite equal timestamps", async () => {
    const f = await fixture();
    const burst = Array.from({ length: 50 }, (_, i) => ({ ...event("inv1", { text: `e${i}` }), timestamp: 1 }));
    await appendEvents(f.userId, f.sessionId, burst);
    expect(texts((await listEvents(f.userId, f.sessionId)).items)).toEqual(burst.map((_, i) => `e${i}`));
  });

  it("restores more files than one statement takes (1,200 of them), and refuses a long delta naming one missing version", async () => {
    const f = await fixture();
    const names = Array.from({ length: 1200 }, (_, i) => `file-${i}.txt`);
    for (const name of names) await f.save(name, `v0 of ${name}`);
    await f.append(event("inv1", { author: "user", text: "one", artifacts: Object.fromEntries(names.map((n) => [n, 0])) }));
    for (const name of names) await f.save(name, `v1 of ${name}`);
    await f.append(event("inv2", { author: "user", text: "two", artifacts: Object.fromEntries(names.map((n) => [n, 1])) }));

    const { event: marker } = await rewindSession(f.userId, f.sessionId, "inv2");
    expect(Object.keys(marker.actions?.artifact_delta ?? {})).toHaveLength(1200);
    expect(marker.actions?.artifact_delta?.["file-1199.txt"]).toBe(2);
    expect(await fileText(f.userId, f.sessionId, "file-0.txt")).toBe("v0 of file-0.txt");
    expect(await fileText(f.userId, f.sessionId, "file-1199.txt")).toBe("v0 of file-1199.txt");

    const before = await tableRows();
    const delta = { ...Object.fromEntries(names.map((n) => [n, 0])), "file-1100.txt": 9 };
    await expect(f.append(event("inv3", { author: "user", text: "three", artifacts: delta }))).rejects.toMatchObject({
      code: "invalid_reference",
      message: "Artifact file-1100.txt has no version 9",
    });
    expect(await tableRows()).toEqual(before);
  });
});
