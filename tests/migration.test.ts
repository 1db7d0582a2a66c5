/**
 * A database written before this release (migrations 0000–0001: task JSON holding its history, no
 * invocation tree, updated_at ordering) opens under the current code: the new migration and the
 * one-time replay give it the tree, the tail, a total chat order and event-derived task histories, and its
 * messages their search index.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { afterEach, describe, expect, it } from "vitest";
import { setDb } from "@/lib/db/connection";
import { prepareDatabase } from "@/lib/db/prepare";
import { listSessions, listTasks, listVersions, searchChats, switchSession } from "@/lib/db/queries";
import { openSqlite } from "@/lib/db/sqlite";
import { checkInvariants } from "@/lib/db/tx/invariants";
import { indexEntry } from "@/lib/db/tx/search-index";

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The migrations folder as it was: only those before `next`. */
function oldMigrations(next: number) {
  const folder = path.join(dir, "migrations");
  cpSync(path.join(process.cwd(), "drizzle", "sqlite"), folder, { recursive: true });
  const journal = path.join(folder, "meta", "_journal.json");
  const parsed = JSON.parse(readFileSync(journal, "utf8"));
  parsed.entries = parsed.entries.filter((e: { idx: number }) => e.idx < next);
  writeFileSync(journal, JSON.stringify(parsed));
  return folder;
}

const oldEvent = (seq: number, invocation: string, author: string, text?: string, extra: object = {}) => ({
  seq,
  id: `ev${seq}`,
  invocation,
  author,
  data: JSON.stringify({
    id: `ev${seq}`,
    invocation_id: invocation,
    author,
    timestamp: 1_700_000_000 + seq,
    ...(text ? { content: { role: author === "user" ? "user" : "model", parts: [{ text }] } } : {}),
    actions: { state_delta: {}, artifact_delta: {}, ...extra },
  }),
  marker: "rewind_before_invocation_id" in extra ? (seq === 5 ? 2 : null) : null,
});

describe("upgrading a database from before the invocation tree", () => {
  it("builds the tree by one replay per chat, keeps the chat order, and reads old tasks", async () => {
    dir = mkdtempSync(path.join(tmpdir(), "retrace-migrate-"));
    const file = path.join(dir, "old.db");
    const old = new Database(file);
    migrate(drizzle(old), { migrationsFolder: oldMigrations(2) });
    old.prepare("INSERT INTO users (id, created_at) VALUES ('u', 1)").run();
    for (const [id, updated] of [
      ["s-old", 10],
      ["s-new", 20],
    ] as const) {
      old
        .prepare(
          "INSERT INTO sessions (id, user_id, agent, name, state, initial_state, last_seq, created_at, updated_at) VALUES (?, 'u', 'demo', ?, '{}', '{}', ?, 1, ?)",
        )
        .run(id, id, id === "s-new" ? 6 : 0, updated);
    }
    // s-new: A, B, then a rewind before B, then B2 (an edit).
    const log = [
      oldEvent(1, "A", "user", "a"),
      oldEvent(2, "A", "demo", "ra"),
      oldEvent(3, "B", "user", "b"),
      oldEvent(4, "B", "demo", "rb"),
      oldEvent(5, "M", "user", undefined, { rewind_before_invocation_id: "B" }),
      oldEvent(6, "B2", "user", "b2"),
    ];
    for (const e of log) {
      old
        .prepare(
          "INSERT INTO events (session_id, seq, id, invocation_id, author, timestamp, data, marker_parent) VALUES ('s-new', ?, ?, ?, ?, 1, ?, ?)",
        )
        .run(e.seq, e.id, e.invocation, e.author, e.data, e.marker);
    }
    for (const [invocation, position] of [
      ["A", 1],
      ["B", 3],
      ["B2", 6],
    ] as const) {
      const task = {
        kind: "task",
        id: `t-${invocation}`,
        contextId: "s-new",
        status: { state: "completed" },
        history: [{ kind: "message", messageId: "stale", role: "user", parts: [{ kind: "text", text: "stale" }] }],
        metadata: { kagent_invocation_id: invocation },
      };
      old
        .prepare(
          "INSERT INTO tasks (id, session_id, invocation_id, position, data, created_at, updated_at) VALUES (?, 's-new', ?, ?, ?, 1, 1)",
        )
        .run(`t-${invocation}`, invocation, position, JSON.stringify(task));
    }
    old.close();

    const db = openSqlite(file);
    await prepareDatabase(db);
    setDb(db);
    expect(await checkInvariants(db)).toEqual([]);
    expect((await listSessions("u")).items.map((s) => s.id)).toEqual(["s-new", "s-old"]);
    // Activity became a clock: each chat's is at least its last write's time, in the order the counter gave.
    const activity = await db.all<{ id: string; activity: number; updated_at: number }>(
      sql`SELECT id, activity, updated_at FROM sessions ORDER BY activity DESC`,
    );
    expect(activity.map((r) => [r.id, r.activity >= r.updated_at])).toEqual([
      ["s-new", true],
      ["s-old", true],
    ]);
    expect((await db.one<{ activity: number }>(sql`SELECT activity FROM users WHERE id = 'u'`))?.activity).toBe(activity[0].activity);
    const tasks = (await listTasks("u", "s-new")).items;
    expect(tasks.map((t) => [t.id, t.history?.map((m) => m.parts)])).toEqual([
      ["t-A", [[{ kind: "text", text: "a" }], [{ kind: "text", text: "ra" }]]],
      ["t-B2", [[{ kind: "text", text: "b2" }]]],
    ]);
    expect(tasks[1].metadata?.retrace_siblings).toMatchObject({ invocation_ids: ["B", "B2"] });
    expect((await listVersions("u", "s-new")).map((v) => v.last_user_text)).toEqual(["b2", "b"]);
    // Messages stored before search are indexed once at start-up, the rewound one found only when asked for.
    const search = async (q: string, includeRewound = false) =>
      (await searchChats("u", { q, includeRewound })).items.map((h) => `${h.invocation_id}${h.rewound ? " rewound" : ""}`);
    expect([await search("ra"), await search("b2"), await search("rb"), await search("rb", true)]).toEqual([
      ["A"],
      ["B2"],
      [],
      ["B rewound"],
    ]);
    await switchSession("u", "s-new", "B");
    expect((await listTasks("u", "s-new")).items.map((t) => t.id)).toEqual(["t-A", "t-B"]);
    expect(await search("rb")).toEqual(["B"]);
    expect(await checkInvariants(db)).toEqual([]);
  });
});

describe("upgrading a database whose search index kept no texts", () => {
  it("gives its messages their snippets' texts once at start-up, and finds them as before, around the match", async () => {
    dir = mkdtempSync(path.join(tmpdir(), "retrace-migrate-"));
    const file = path.join(dir, "old.db");
    const old = new Database(file);
    migrate(drizzle(old), { migrationsFolder: oldMigrations(12) });
    old.prepare("INSERT INTO users (id, created_at) VALUES ('u', 1)").run();
    old
      .prepare(
        "INSERT INTO sessions (id, user_id, agent, name, state, initial_state, last_seq, tail_seq, tree_built, created_at, updated_at) VALUES ('s', 'u', 'demo', 'Old chat', '{}', '{}', 2, 2, 0, 1, 1)",
      )
      .run();
    // As the release before wrote them: each event with its FTS5 row under its search_pos.
    const texts = ["a short heron", `${"lorem ipsum ".repeat(2000)}a long heron ${"dolor sit ".repeat(1000)}`];
    for (const [i, text] of texts.entries()) {
      const { data, id } = oldEvent(i + 1, `i${i}`, "user", text);
      old
        .prepare(
          "INSERT INTO events (session_id, seq, id, invocation_id, author, timestamp, data, search_pos) VALUES ('s', ?, ?, ?, 'user', 1, ?, ?)",
        )
        .run(i + 1, id, `i${i}`, data, i + 1);
      old.prepare("INSERT INTO search_fts (rowid, words) VALUES (?, ?)").run(i + 1, indexEntry("u", JSON.parse(data))?.words);
    }
    old.close();

    const db = openSqlite(file);
    await prepareDatabase(db);
    setDb(db);
    expect(await checkInvariants(db)).toEqual([]);
    const hits = (await searchChats("u", { q: "heron" })).items.map((h) => h.snippet);
    expect(hits.map((s) => s.highlights.map(([from, to]) => s.text.slice(from, to)))).toEqual([["heron"], ["heron"]]);
    expect(hits.map((s) => s.text)).toEqual([expect.stringMatching(/^….* a long heron dolor sit .*…$/), "a short heron"]);
    expect((await db.one<{ n: number }>(sql`SELECT COUNT(*) AS n FROM search_fts`))?.n).toBe(2);
    await db.close();
  });
});
