import { describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/connection";
import { labelVersion } from "@/lib/db/labels";
import { createUser, deleteSession, forkSession, getSession, listVersions, readTree, rewindSession, switchSession } from "@/lib/db/queries";
import { checkInvariants } from "@/lib/db/tx/invariants";
import { type Fixture, fixture, referenceChat, sendTurn } from "./helpers";
import { count, countStatements, tableRows } from "./support/db";

const say = (id: string) => `say ${id}`;
const send = (f: Pick<Fixture, "userId" | "sessionId">, id: string, text = say(id)) => sendTurn(f, id, text);

/** Each turn as `id<parent,index/count,current?>`. */
const shape = async (userId: string, sessionId: string) =>
  (await readTree(userId, sessionId)).turns.map(
    (t) => `${t.invocation_id}<${t.parent_invocation_id ?? ""},${t.sibling_index}/${t.sibling_count}${t.current ? ",current" : ""}>`,
  );

describe("the map: one read of the chat's tree", () => {
  it("every turn with its parent and versions, the current head marked, markers left out", async () => {
    const { f } = await referenceChat(say);
    expect(await shape(f.userId, f.sessionId)).toEqual(["A<,1/1,current>", "B<A,1/3>", "B2<A,2/3>", "B3<A,3/3,current>"]);
    const tree = await readTree(f.userId, f.sessionId);
    expect(tree.turns[0]).toMatchObject({ text: "say A", label: null, pinned: false, timestamp: "2023-11-14T22:13:20.000Z" });
    expect(tree).toMatchObject({ forks: [], source: null });

    await switchSession(f.userId, f.sessionId, "B");
    expect(await shape(f.userId, f.sessionId)).toEqual(["A<,1/1,current>", "B<A,1/3,current>", "B2<A,2/3>", "B3<A,3/3>"]);
    await rewindSession(f.userId, f.sessionId, "A");
    expect(await shape(f.userId, f.sessionId)).toEqual(["A<,1/1>", "B<A,1/3>", "B2<A,2/3>", "B3<A,3/3>"]);
    await send(f, "A2");
    expect((await shape(f.userId, f.sessionId)).filter((t) => t.startsWith("A"))).toEqual(["A<,1/2>", "A2<,2/2,current>"]);
  });

  it("forks branch off where they left, link back to their source, and deleted chats are not shown", async () => {
    const { f } = await referenceChat(say);
    const before = await forkSession(f.userId, f.sessionId, { invocationId: "B3", name: "Try again" });
    const copy = await forkSession(f.userId, f.sessionId, { name: "Copy" });
    const gone = await forkSession(f.userId, f.sessionId, { invocationId: "A", name: "Gone" });
    await deleteSession(f.userId, gone.id);
    expect((await readTree(f.userId, f.sessionId)).forks).toEqual([
      { session_id: before.id, name: "Try again", after_invocation_id: "A" },
      { session_id: copy.id, name: "Copy", after_invocation_id: "B3" },
    ]);

    // The fork reads its source's turns through its pieces, rewound ones included, and goes on from A.
    await send({ userId: f.userId, sessionId: before.id }, "C");
    expect(await shape(f.userId, before.id)).toEqual(["A<,1/1,current>", "B<A,1/3>", "B2<A,2/3>", "C<A,3/3,current>"]);
    expect((await readTree(f.userId, before.id)).source).toEqual({ session_id: f.sessionId, name: "Test chat", after_invocation_id: "A" });

    // A source deleted while its forks read it stays as a tombstone: the fork's map no longer links to it.
    await deleteSession(f.userId, f.sessionId);
    expect((await readTree(f.userId, before.id)).source).toBeNull();
    expect((await shape(f.userId, before.id)).length).toBe(4);
  });

  it("costs the same number of statements whatever the chat's length and the user's other chats", async () => {
    const statements = async (turns: number) => {
      const f = await fixture();
      for (let i = 0; i < turns; i++) await send(f, `t${i}`);
      await rewindSession(f.userId, f.sessionId, "t1");
      return (await countStatements(/./, () => readTree(f.userId, f.sessionId))).count;
    };
    expect(await statements(40)).toBe(await statements(3));
  });

  it("another user's chat is a 404", async () => {
    const { f } = await referenceChat(say);
    await expect(readTree(await createUser(), f.sessionId)).rejects.toMatchObject({ status: 404 });
  });
});

describe("naming and pinning a version", () => {
  it("shows in the map and in History, and no name nor pin removes it", async () => {
    const { f, m1 } = await referenceChat(say);
    expect(await labelVersion(f.userId, f.sessionId, "B", { label: "  the long one ", pinned: true })).toEqual({
      invocation_id: "B",
      label: "the long one",
      pinned: true,
    });
    await labelVersion(f.userId, f.sessionId, "B3", { label: null, pinned: true });
    const turns = (await readTree(f.userId, f.sessionId)).turns;
    expect(turns.map((t) => [t.invocation_id, t.label, t.pinned])).toEqual([
      ["A", null, false],
      ["B", "the long one", true],
      ["B2", null, false],
      ["B3", null, true],
    ]);
    const versions = await listVersions(f.userId, f.sessionId);
    expect(versions.find((v) => v.marker_invocation_id === m1)).toMatchObject({ label: "the long one", pinned: true });
    expect(versions[0]).toMatchObject({ marker_invocation_id: null, label: null, pinned: true });

    await labelVersion(f.userId, f.sessionId, "B", { label: "renamed", pinned: false });
    expect((await readTree(f.userId, f.sessionId)).turns[1]).toMatchObject({ label: "renamed", pinned: false });
    await labelVersion(f.userId, f.sessionId, "B", { label: " ", pinned: false });
    expect(await count("version_labels", f.sessionId)).toBe(1);
  });

  it("is charged to the quota and given back; a deleted chat's labels go with it, a tombstone keeps none", async () => {
    const { f } = await referenceChat(say);
    const bytes = async () =>
      (await tableRows()).sessions.find((s) => (s as { id: string }).id === f.sessionId) as { stored_bytes: number };
    const start = Number((await bytes()).stored_bytes);
    await labelVersion(f.userId, f.sessionId, "A", { label: "start", pinned: true });
    expect(Number((await bytes()).stored_bytes)).toBeGreaterThan(start);
    await labelVersion(f.userId, f.sessionId, "A", { label: null, pinned: false });
    expect(Number((await bytes()).stored_bytes)).toBe(start);

    await labelVersion(f.userId, f.sessionId, "A", { label: "start", pinned: true });
    const fork = await forkSession(f.userId, f.sessionId, { invocationId: "B3" });
    // A fork starts without its source's labels, and may label the turns it shares.
    expect((await readTree(f.userId, fork.id)).turns[0]).toMatchObject({ invocation_id: "A", label: null });
    await labelVersion(f.userId, fork.id, "A", { label: "mine", pinned: false });
    expect((await readTree(f.userId, f.sessionId)).turns[0].label).toBe("start");
    expect(await checkInvariants(await getDb())).toEqual([]);
    await deleteSession(f.userId, f.sessionId);
    expect(await count("version_labels", f.sessionId)).toBe(0);
    expect(await checkInvariants(await getDb())).toEqual([]);
    await deleteSession(f.userId, fork.id);
    expect(await count("version_labels")).toBe(0);
  });

  it("refuses a marker, an unknown turn, another user's chat and bad input, writing nothing", async () => {
    const { f, m1 } = await referenceChat(say);
    const stranger = await createUser();
    const before = await tableRows();
    await expect(labelVersion(f.userId, f.sessionId, m1, { label: "x", pinned: false })).rejects.toMatchObject({
      status: 400,
      code: "invocation_not_found",
    });
    await expect(labelVersion(f.userId, f.sessionId, "nope", { label: "x", pinned: false })).rejects.toMatchObject({ status: 400 });
    await expect(labelVersion(stranger, f.sessionId, "A", { label: "x", pinned: false })).rejects.toMatchObject({ status: 404 });
    expect(await tableRows()).toEqual(before);
    expect((await getSession(f.userId, f.sessionId)).state.step).toBe("B3");
  });
});
