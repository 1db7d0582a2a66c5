import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { ArchiveFile } from "@/lib/archive/format";
import { archiveText } from "@/lib/archive/writer";
import { chatRecords, exportOrder } from "@/lib/db/archive-export";
import { getDb } from "@/lib/db/connection";
import { importUpload } from "@/lib/db/import-upload";
import {
  appendEvents,
  createUser,
  forkSession,
  getSession,
  labelVersion,
  listArtifacts,
  listSessions,
  listTasks,
  rewindSession,
  saveTask,
  switchSession,
} from "@/lib/db/queries";
import { checkInvariants } from "@/lib/db/tx/invariants";
import { completedTask, event, fixture } from "./helpers";
import { countedBytesOf, storedBytesOf } from "./support/bytes";

const AGENTS = { agent: "demo", agents: ["demo"] };

/**
 * A chat with every kind of row: state, file versions (restored and tombstoned), rewinds, a switch, tasks,
 * names and pins (on a turn of the shown version and on a rewound one), and a fork of it with its own.
 */
async function richChats() {
  const f = await fixture({ tone: "dry", "user:lang": "en" });
  const turn = async (inv: string, i: number, files: string[]) => {
    const deltas: Record<string, number> = {};
    for (const name of files) deltas[name] = (await f.save(name, `${name} at ${inv}`)).version;
    await f.append(
      event(inv, { author: "user", text: `question ${inv}` }),
      event(inv, { text: `answer ${inv}`, state: { step: i, [`k${inv}`]: { nested: [i, "x"] }, "user:seen": i }, artifacts: deltas }),
    );
    await saveTask(f.userId, f.sessionId, completedTask(f.sessionId, inv));
  };
  await turn("inv1", 1, ["notes.txt"]);
  await turn("inv2", 2, ["notes.txt", "draft.md"]);
  await turn("inv3", 3, ["notes.txt"]);
  await rewindSession(f.userId, f.sessionId, "inv2");
  await turn("inv4", 4, ["draft.md"]);
  await switchSession(f.userId, f.sessionId, "inv3");
  const fork = await forkSession(f.userId, f.sessionId, { invocationId: "inv3" });
  await appendEvents(f.userId, fork.id, [event("inv5", { author: "user", text: "in the fork" }), event("inv5", { text: "forked" })]);
  await labelVersion(f.userId, f.sessionId, "inv1", { label: "Start", pinned: false });
  await labelVersion(f.userId, f.sessionId, "inv3", { label: "Chosen ✓", pinned: true });
  await labelVersion(f.userId, f.sessionId, "inv4", { label: null, pinned: true });
  // The fork's own: on a turn it shares with its source, and on its own turn.
  await labelVersion(f.userId, fork.id, "inv1", { label: "Fork's start", pinned: true });
  await labelVersion(f.userId, fork.id, "inv5", { label: "Forked", pinned: false });
  return { ...f, forkId: fork.id };
}

async function exportAll(userId: string): Promise<string> {
  const order = await exportOrder(userId);
  async function* chats() {
    for (const id of order) yield chatRecords(userId, id);
  }
  let text = "";
  for await (const piece of archiveText(chats())) text += piece;
  return text;
}

/** The archive text in small chunks, as an upload arrives. */
async function* chunks(text: string, size = 777) {
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

interface Chat {
  session: Record<string, unknown>;
  files: ArchiveFile[];
  events: Record<string, unknown>[];
  tasks: { invocation_id: string; task: unknown }[];
  labels?: unknown[];
}

/** What must survive a round trip: everything but the ids and times an import gives anew. */
function comparable(text: string) {
  const chats = (JSON.parse(text) as { chats: Chat[] }).chats;
  return chats.map(({ session, files, events, tasks, labels }) => {
    const { id: _id, created_at: _c, updated_at: _u, forked_from_session_id, ...rest } = session;
    return {
      session: { ...rest, forked: forked_from_session_id !== null },
      files,
      events,
      tasks: (tasks ?? []).map(({ invocation_id, task }) => ({ invocation_id, task })),
      labels,
    };
  });
}

/** A chat's names and pins as stored. */
async function labelsOf(sessionId: string) {
  const db = await getDb();
  const rows = await db.all<{ invocation_id: string; label: string | null; pinned: boolean | number }>(sql`
    SELECT invocation_id, label, pinned FROM version_labels WHERE session_id = ${sessionId} ORDER BY invocation_id`);
  return rows.map((r) => ({ ...r, pinned: Boolean(r.pinned) }));
}

async function tree(sessionId: string) {
  const db = await getDb();
  return db.all(sql`
    SELECT invocation_id, first_seq, last_seq, after_invocation_id, depth, is_marker FROM invocations
    WHERE session_id = ${sessionId} ORDER BY first_seq`);
}

describe("export and import of Retrace archives", () => {
  it("round-trips every chat: the log, tree, state, files, lineage, names and pins come back identical", async () => {
    const source = await richChats();
    const exported = await exportAll(source.userId);
    const importer = await createUser();
    const progress: number[] = [];
    const imported = await importUpload(importer, chunks(exported), { ...AGENTS, onProgress: (p) => progress.push(p.bytes) });
    expect(imported).toHaveLength(2);
    expect(progress.at(-1)).toBe(Buffer.byteLength(exported));
    const again = await exportAll(importer);
    const [chat, forked] = comparable(exported);
    // 4 turns of 2 events and 2 rewind markers; the fork: 2 turns before inv3 and its own; every file version (rewinds add some).
    expect([chat.events.length, forked.events.length, chat.files.length, chat.tasks.length]).toEqual([10, 6, 9, 4]);
    expect(chat.labels).toEqual([
      { invocation_id: "inv1", label: "Start", pinned: false },
      { invocation_id: "inv3", label: "Chosen ✓", pinned: true },
      { invocation_id: "inv4", label: null, pinned: true },
    ]);
    expect(forked.labels).toEqual([
      { invocation_id: "inv1", label: "Fork's start", pinned: true },
      { invocation_id: "inv5", label: "Forked", pinned: false },
    ]);
    expect(comparable(again)).toEqual(comparable(exported));

    const [copy, forkCopy] = imported;
    expect((await getSession(importer, forkCopy.id)).forked_from_session_id).toBe(copy.id);
    const original = await getSession(source.userId, source.sessionId);
    const restored = await getSession(importer, copy.id);
    // Session state comes back; `user:` keys stay the importer's own (none were written).
    expect(Object.fromEntries(Object.entries(restored.state).filter(([k]) => !k.startsWith("user:")))).toEqual(
      Object.fromEntries(Object.entries(original.state).filter(([k]) => !k.startsWith("user:"))),
    );
    expect(Object.keys(restored.state).filter((k) => k.startsWith("user:"))).toEqual([]);
    expect(await listArtifacts(importer, copy.id)).toEqual(await listArtifacts(source.userId, source.sessionId));
    expect(await tree(copy.id)).toEqual(await tree(source.sessionId));
    expect(await labelsOf(copy.id)).toEqual(await labelsOf(source.sessionId));
    expect(await labelsOf(forkCopy.id)).toEqual(await labelsOf(source.forkId));
    expect((await labelsOf(copy.id)).length).toBe(3);
    const tasks = (await listTasks(importer, copy.id)).items;
    expect(tasks.map((t) => t.metadata?.retrace_siblings)).toEqual(
      (await listTasks(source.userId, source.sessionId)).items.map((t) => t.metadata?.retrace_siblings),
    );
    expect(tasks.every((t) => t.contextId === copy.id)).toBe(true);
    const db = await getDb();
    expect(await checkInvariants(db)).toEqual([]);
    const { counted, books } = await countedBytesOf(db, importer);
    expect(counted).toBe(books);
    expect(counted).toBeGreaterThanOrEqual(await storedBytesOf(db, importer));
  });

  it("imports an archive from before names and pins (no labels section) with none, and refuses a label on a turn the chat lacks", async () => {
    const f = await fixture();
    await f.append(event("inv1", { author: "user", text: "hi" }), event("inv1", { text: "hello" }));
    await labelVersion(f.userId, f.sessionId, "inv1", { label: "First", pinned: true });
    const exported = JSON.parse(await exportAll(f.userId)) as { chats: Chat[] };
    expect(exported.chats[0].labels).toEqual([{ invocation_id: "inv1", label: "First", pinned: true }]);
    const { labels: _labels, ...older } = exported.chats[0];
    const importer = await createUser();
    const [copy] = await importUpload(importer, chunks(JSON.stringify({ ...exported, chats: [older] })), AGENTS);
    expect(await labelsOf(copy.id)).toEqual([]);
    const back = (JSON.parse(await exportAll(importer)) as { chats: Chat[] }).chats;
    expect([back[0].events.length, back[0].labels]).toEqual([2, undefined]);
    const stray = { ...exported, chats: [{ ...older, labels: [{ invocation_id: "nope", label: "Gone", pinned: false }] }] };
    await expect(importUpload(importer, chunks(JSON.stringify(stray)), AGENTS)).rejects.toThrow(/does not have/);
    const empty = { ...exported, chats: [{ ...older, labels: [{ invocation_id: "inv1", label: null, pinned: false }] }] };
    await expect(importUpload(importer, chunks(JSON.stringify(empty)), AGENTS)).rejects.toThrow(/names or pins/);
    expect((await listSessions(importer)).items).toHaveLength(1);
    expect(await checkInvariants(await getDb())).toEqual([]);
  });

  it("imports the same archive twice as two chats, with their own task ids", async () => {
    const f = await fixture();
    await f.append(event("inv1", { author: "user", text: "hi" }), event("inv1", { text: "hello" }));
    await saveTask(f.userId, f.sessionId, completedTask(f.sessionId, "inv1"));
    const exported = await exportAll(f.userId);
    await importUpload(f.userId, chunks(exported), AGENTS);
    await importUpload(f.userId, chunks(exported), AGENTS);
    const chats = (await listSessions(f.userId)).items;
    expect(chats).toHaveLength(3);
    const taskIds = new Set<string>();
    for (const chat of chats) for (const task of (await listTasks(f.userId, chat.id)).items) taskIds.add(task.id);
    expect(taskIds.size).toBe(3);
  });

  it("refuses a broken chat whole and keeps the chats before it", async () => {
    const f = await fixture();
    await f.append(event("inv1", { author: "user", text: "hi" }));
    const good = JSON.parse(await exportAll(f.userId));
    const bad = structuredClone(good.chats[0]);
    bad.events[0].seq = 5;
    const text = JSON.stringify({ ...good, chats: [good.chats[0], bad] });
    const importer = await createUser();
    await expect(importUpload(importer, chunks(text), AGENTS)).rejects.toThrow(/seq 5 where 1 was expected.*1 chats before it/);
    expect((await listSessions(importer)).items).toHaveLength(1);
    expect(await checkInvariants(await getDb())).toEqual([]);
  });

  it("checks file bytes against their hash, and the byte quota on everything imported", async () => {
    const f = await fixture();
    await f.save("a.txt", "x".repeat(20_000));
    await f.append(event("inv1", { author: "user", text: "hi", artifacts: { "a.txt": 0 } }));
    const archive = JSON.parse(await exportAll(f.userId));
    const tampered = structuredClone(archive);
    tampered.chats[0].files[0].data_base64 = Buffer.from("evil").toString("base64");
    const importer = await createUser();
    await expect(importUpload(importer, chunks(JSON.stringify(tampered)), AGENTS)).rejects.toThrow(/do not match its sha256/);
    process.env.RETRACE_MAX_STORED_BYTES = "15000";
    try {
      await expect(importUpload(importer, chunks(JSON.stringify(archive)), AGENTS)).rejects.toMatchObject({ code: "quota_exceeded" });
    } finally {
      delete process.env.RETRACE_MAX_STORED_BYTES;
    }
    expect((await listSessions(importer)).items).toHaveLength(0);
    const db = await getDb();
    expect(Number((await db.one<{ n: number }>(sql`SELECT stored_bytes AS n FROM users WHERE id = ${importer}`))?.n ?? 0)).toBe(0);
  });

  it("imports a chat larger than what is kept in memory (the rest waits on disk)", async () => {
    const f = await fixture();
    const big = Buffer.alloc(6 * 1024 * 1024, 7);
    const saved = await f.save("big.bin", big.toString("latin1"));
    await f.append(event("inv1", { author: "user", text: "hi", artifacts: { "big.bin": saved.version } }));
    for (let i = 0; i < 300; i++) await f.append(event(`inv${i + 2}`, { author: "user", text: `turn ${i}` }));
    const exported = await exportAll(f.userId);
    const importer = await createUser();
    const [chat] = await importUpload(importer, chunks(exported, 64 * 1024), AGENTS);
    expect(comparable(await exportAll(importer))).toEqual(comparable(exported));
    expect((await listArtifacts(importer, chat.id))[0].size).toBe(Buffer.byteLength(big.toString("latin1")));
  });

  it("refuses what is not an archive with a readable message", async () => {
    const importer = await createUser();
    await expect(importUpload(importer, chunks("hello"), AGENTS)).rejects.toThrow(
      /not JSON nor a ZIP\. Import takes a Retrace archive, ChatGPT/,
    );
    // The wrong JSON file of an export (say, ChatGPT's user.json) is told which one works.
    for (const wrong of ['{"format":"other","chats":[{"session":{}}]}', '{"id":"user-1","email":"a@example.com"}'])
      await expect(importUpload(importer, chunks(wrong), AGENTS)).rejects.toThrow(
        /^This JSON is not a Retrace archive .*ChatGPT's conversations\.json .*export ZIP\.$/,
      );
    await expect(importUpload(importer, chunks('{"format":"retrace.archive","chats":[{"sess'), AGENTS)).rejects.toThrow(/ends before/);
  });
});
