/** Search (docs/semantics.md, "Search"), on both dialects: what is indexed, when, for whom, and which hits a search gives. */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { mergeGuest } from "@/lib/db/accounts";
import { getDb } from "@/lib/db/connection";
import { prepareDatabase } from "@/lib/db/prepare";
import {
  appendEvents,
  createSession,
  createUser,
  deleteSession,
  forkSession,
  listEvents,
  rewindSession,
  searchChats,
  switchSession,
} from "@/lib/db/queries";
import { checkInvariants } from "@/lib/db/tx/invariants";
import { ValidationError } from "@/lib/errors";
import { event, fixture } from "./helpers";
import { STALL_LIMIT_MS, withProbe } from "./support/stall";

const search = (userId: string, q: string, opts: { includeRewound?: boolean; limit?: number; before?: string } = {}) =>
  searchChats(userId, { q, ...opts });
/** Each hit as `chat name: highlighted words`. */
const found = async (userId: string, q: string, opts: { includeRewound?: boolean } = {}) =>
  (await search(userId, q, opts)).items.map(
    (h) =>
      `${h.session_name}${h.rewound ? " (rewound)" : ""}: ${h.snippet.highlights.map(([s, e]) => h.snippet.text.slice(s, e)).join(" ")}`,
  );
/** Messages the index holds (SQLite: FTS5 rows; PostgreSQL: events with words). */
const indexSize = async () => {
  const db = await getDb();
  return db.dialect.name === "sqlite"
    ? Number((await db.one<{ n: number }>(sql`SELECT COUNT(*) AS n FROM search_fts`))?.n)
    : Number((await db.one<{ n: number }>(sql`SELECT COUNT(*) AS n FROM events WHERE search_doc IS NOT NULL`))?.n);
};

describe("what is indexed", () => {
  it("user and agent text, newest first, with highlights; not tool calls, results or markers", async () => {
    const f = await fixture();
    await f.append(event("i1", { author: "user", text: "Set the colour to Crimson, please" }), event("i1", { text: "Crimson it is." }));
    const call = {
      ...event("i2", { author: "demo" }),
      content: { role: "model", parts: [{ function_call: { name: "update_state", args: { crimson: 1 } } }] },
    };
    const result = {
      ...event("i2", { author: "demo" }),
      content: { role: "user", parts: [{ function_response: { name: "update_state", response: { crimson: true } } }] },
    };
    await f.append(event("i2", { author: "user", text: "and café crème?" }), call, result);
    expect(await found(f.userId, "crimson")).toEqual(["Test chat: Crimson", "Test chat: Crimson"]);
    const hits = (await search(f.userId, "CRIMSON")).items;
    expect(hits.map((h) => h.author)).toEqual(["agent", "user"]);
    expect(hits[1]).toMatchObject({ session_id: f.sessionId, invocation_id: "i1", rewound: false });
    expect(hits[1].snippet.text).toBe("Set the colour to Crimson, please");
    expect(await found(f.userId, "Cafe CREME")).toEqual(["Test chat: café crème"]);
    expect(await indexSize()).toBe(3);
    expect(await checkInvariants(await getDb())).toEqual([]);
  });

  it("the last word is a prefix; the others are whole words; a long prefix still matches only words it starts", async () => {
    const f = await fixture();
    await f.append(event("i1", { author: "user", text: "configuration of the rewinding engine" }), event("i1", { text: "confirmed" }));
    expect(await found(f.userId, "rewi")).toEqual(["Test chat: rewinding"]);
    expect(await found(f.userId, "the rewinding")).toEqual(["Test chat: the rewinding"]);
    expect(await found(f.userId, "rewi the")).toEqual([]); // "rewi" is not a whole word
    expect(await found(f.userId, "configur")).toEqual(["Test chat: configuration"]);
    expect(await found(f.userId, "confi")).toEqual(["Test chat: confirmed", "Test chat: configuration"]);
    expect(await found(f.userId, "co")).toEqual([]); // under three letters: whole words only
  });

  it("a long prefix is checked against the whole indexed text of a long message, not just its start", async () => {
    const f = await fixture();
    const filler = "lorem ipsum ".repeat(200); // 2,400 characters: the index keeps three parts and marks
    await f.append(
      event("a", { author: "user", text: `${filler}the configuration` }),
      event("b", { author: "user", text: `${filler}confirmed` }),
      event("c", { author: "user", text: "configured, and short" }),
    );
    expect(await found(f.userId, "configur")).toEqual(["Test chat: configured", "Test chat: configuration"]);
    expect(await found(f.userId, "confirm")).toEqual(["Test chat: confirmed"]);
    expect((await search(f.userId, "lorem configu")).items.map((h) => h.invocation_id)).toEqual(["a"]);
  });
});

describe("same transaction", () => {
  it("a refused append leaves no index rows, and nothing to find", async () => {
    const f = await fixture();
    await f.append(event("i1", { author: "user", text: "kept words" }));
    const before = await indexSize();
    const refused = [
      event("i2", { author: "user", text: "phantom words" }),
      event("i2", { text: "more phantom", artifacts: { "no.txt": 3 } }),
    ];
    await expect(f.append(...refused)).rejects.toThrow(/no version 3/);
    await expect(f.append(event("i3", { author: "user", text: "phantom", state: { "app:x": 1 } }))).rejects.toThrow(/operator/);
    expect(await indexSize()).toBe(before);
    expect(await found(f.userId, "phantom")).toEqual([]);
    expect(await found(f.userId, "kept")).toHaveLength(1);
    // The next append takes the place the refused one had not (SQLite's positions follow the highest stored).
    await f.append(event("i4", { author: "user", text: "phantom at last" }));
    expect(await found(f.userId, "phantom")).toEqual(["Test chat: phantom"]);
    expect(await checkInvariants(await getDb())).toEqual([]);
  });

  it("a deleted chat's rows leave the index with it", async () => {
    const f = await fixture();
    await f.append(event("i1", { author: "user", text: "ephemeral" }));
    await deleteSession(f.userId, f.sessionId);
    expect(await indexSize()).toBe(0);
    expect(await found(f.userId, "ephemeral")).toEqual([]);
  });
});

describe("an index written before it kept texts", () => {
  it("gets them at start-up, its words untouched, and gives the same snippets", async () => {
    const f = await fixture();
    const long = `${"lorem ipsum ".repeat(2000)}a long heron ${"dolor sit ".repeat(1000)}`;
    await f.append(event("a", { author: "user", text: "a short heron" }), event("a", { text: long }));
    const before = await search(f.userId, "heron");
    const db = await getDb();
    await db.run(sql`DELETE FROM search_texts`);
    await db.run(sql`DELETE FROM search_marks`);
    await db.run(sql`UPDATE sessions SET search_indexed = ${false}`);
    await prepareDatabase(db);
    expect(await search(f.userId, "heron")).toEqual(before);
    expect(before.items[0].snippet.text).toMatch(/^….* a long heron dolor sit .*…$/);
    expect(await indexSize()).toBe(2);
    expect(await checkInvariants(db)).toEqual([]);
  });
});

describe("versions", () => {
  it("finds the current view by default; rewound messages with the switch, and switching to one shows it", async () => {
    const f = await fixture();
    await f.append(event("a", { author: "user", text: "apple pie" }), event("a", { text: "baked" }));
    await f.append(event("b", { author: "user", text: "banana bread" }), event("b", { text: "baked too" }));
    await rewindSession(f.userId, f.sessionId, "b", "edit");
    await f.append(event("c", { author: "user", text: "cherry cake" }), event("c", { text: "baked as well" }));
    expect(await found(f.userId, "banana")).toEqual([]);
    expect(await found(f.userId, "baked")).toEqual(["Test chat: baked", "Test chat: baked"]);
    expect(await found(f.userId, "banana", { includeRewound: true })).toEqual(["Test chat (rewound): banana"]);
    const [hit] = (await search(f.userId, "banana", { includeRewound: true })).items;
    expect(hit.invocation_id).toBe("b");
    await switchSession(f.userId, f.sessionId, hit.invocation_id);
    expect(await found(f.userId, "banana")).toEqual(["Test chat: banana"]);
    expect(await found(f.userId, "cherry", { includeRewound: true })).toEqual(["Test chat (rewound): cherry"]);
  });
});

describe("forks and tombstones", () => {
  it("a fork's inherited messages are hits in the fork too, under the ids the fork shows; a deleted source only through its forks", async () => {
    const f = await fixture();
    await f.append(event("a", { author: "user", text: "shared walnut" }));
    await f.append(event("b", { author: "user", text: "source only walnut" }));
    const fork = await forkSession(f.userId, f.sessionId, { invocationId: "b", name: "The fork" });
    await appendEvents(f.userId, fork.id, [event("c", { author: "user", text: "fork only walnut" })]);
    const hits = (await search(f.userId, "walnut")).items;
    expect(hits.map((h) => `${h.session_name}: ${h.snippet.text}`)).toEqual([
      "The fork: fork only walnut",
      "Test chat: source only walnut",
      "Test chat: shared walnut",
      "The fork: shared walnut",
    ]);
    const forkEvents = (await listEvents(f.userId, fork.id)).items;
    expect(hits[3].event_id).toBe(forkEvents[0].id);
    expect(hits[3].event_id).not.toBe(hits[2].event_id);
    await deleteSession(f.userId, f.sessionId);
    expect(await found(f.userId, "walnut")).toEqual(["The fork: walnut", "The fork: walnut"]);
    await deleteSession(f.userId, fork.id);
    expect(await found(f.userId, "walnut")).toEqual([]);
    expect(await indexSize()).toBe(0);
  });

  it("a fork past the piece limit copies rows in, and indexes the copies as its own", async () => {
    const userId = await createUser();
    let chat = (await createSession(userId, { name: "level 0" })).id;
    for (let level = 1; level <= 18; level++) {
      await appendEvents(userId, chat, [event(`inv${level}`, { author: "user", text: `level${level} hazel` })]);
      chat = (await forkSession(userId, chat, { name: `level ${level}` })).id;
    }
    const hits = (await search(userId, "level3", { limit: 50 })).items;
    expect(hits.map((h) => h.session_name)).toContain("level 18");
    expect(hits).toHaveLength(17); // level 2's chat stores it; levels 3..18 read or copied it
    expect(await checkInvariants(await getDb())).toEqual([]);
  });
});

describe("whose rows", () => {
  it("only the user's own chats, whatever the words", async () => {
    const mine = await fixture();
    const theirs = await fixture();
    await mine.append(event("m", { author: "user", text: "secret plan" }));
    await theirs.append(event("t", { author: "user", text: "secret plan of someone else" }));
    expect((await search(mine.userId, "secret plan")).items.map((h) => h.session_id)).toEqual([mine.sessionId]);
    expect((await search(theirs.userId, "secret")).items.map((h) => h.session_id)).toEqual([theirs.sessionId]);
    expect((await search(await createUser(), "secret")).items).toEqual([]);
  });

  it("a guest's messages are the account's once it signs in: found under the guest's key, which nobody else has", async () => {
    const account = await createUser();
    for (const text of ["first heron", "second heron"]) {
      const guest = await fixture();
      await guest.append(event("g", { author: "user", text }));
      await mergeGuest(guest.userId, account);
      expect((await search(guest.userId, "heron")).items).toEqual([]);
    }
    const chat = await createSession(account, { name: "Account chat" });
    await appendEvents(account, chat.id, [event("a", { author: "user", text: "account heron" })]);
    expect(await found(account, "heron")).toEqual(["Account chat: heron", "Test chat: heron", "Test chat: heron"]);
    expect(await checkInvariants(await getDb())).toEqual([]);
  });
});

describe("queries", () => {
  it("query syntax of either database is just words, and input without a word is a 400", async () => {
    const f = await fixture();
    await f.append(event("i", { author: "user", text: 'near and or not col x it\'s "quoted" back\\slash' }));
    for (const q of ['"unbalanced', "AND", "OR NOT", "NEAR(a b)", "col:x", "x*", "^x", "it's", "back\\slash", "a & b | !c", "(x", "_k"]) {
      await expect(search(f.userId, q)).resolves.toBeDefined();
    }
    expect(await found(f.userId, 'NEAR( "and" OR')).toEqual(["Test chat: near and or"]);
    for (const q of ["", "   ", "***", '"()"', "-+!", '"', "'", "_"])
      await expect(search(f.userId, q)).rejects.toBeInstanceOf(ValidationError);
    await expect(search(f.userId, Array.from({ length: 17 }, (_, i) => `w${i}`).join(" "))).rejects.toThrow(/at most 16/);
  });

  it("pages newest first with the cursor, never splitting a message's hits", async () => {
    const f = await fixture();
    for (let i = 1; i <= 5; i++) await f.append(event(`i${i}`, { author: "user", text: `pear number ${i}` }));
    await forkSession(f.userId, f.sessionId, { name: "Copy" });
    const pages: string[][] = [];
    let before: string | undefined;
    do {
      const page = await search(f.userId, "pear", { limit: 3, before });
      pages.push(page.items.map((h) => `${h.session_name} ${h.snippet.text.slice(-1)}`));
      before = page.nextBefore ?? undefined;
    } while (before);
    expect(pages).toEqual([
      ["Test chat 5", "Copy 5", "Test chat 4", "Copy 4"],
      ["Test chat 3", "Copy 3", "Test chat 2", "Copy 2"],
      ["Test chat 1", "Copy 1"],
    ]);
  });
});

describe("bounded work", () => {
  it("a page examines at most 1,000 messages: past them it ends with a cursor, and the next page goes on", async () => {
    const f = await fixture();
    await f.append(event("kept", { author: "user", text: "pear kept" }));
    await f.append(...Array.from({ length: 1000 }, (_, i) => event("gone", { author: i % 2 ? "agent" : "user", text: `pear ${i}` })));
    await f.append(...Array.from({ length: 50 }, (_, i) => event("gone", { text: `pear late ${i}` })));
    await rewindSession(f.userId, f.sessionId, "gone");
    const first = await search(f.userId, "pear");
    expect(first.items).toEqual([]);
    expect(first.nextBefore).not.toBeNull();
    const second = await search(f.userId, "pear", { before: first.nextBefore ?? undefined });
    expect(second.items.map((h) => h.snippet.text)).toEqual(["pear kept"]);
    expect(second.nextBefore).toBeNull();
  });
});

describe("big messages", () => {
  /** About 1 MB of prose, of many distinct words, with `quartz` and `quartzite` once, about 90,000 characters in. */
  const big = (i: number) => {
    const words = Array.from({ length: 160_000 }, (_, n) => `w${(n * 7919 + i) % 30_000}`);
    words.splice(14_000, 0, "quartz and quartzite");
    return words.join(" ");
  };

  it(`searches over many rewound 1 MB messages, alone or four at once, keep another user's wait under ${STALL_LIMIT_MS} ms`, async () => {
    const f = await fixture();
    for (let i = 0; i < 40; i++) await f.append(event(`b${i}`, { author: "user", text: big(i) }));
    await rewindSession(f.userId, f.sessionId, "b0");
    const searches = [
      () => search(f.userId, "quartz"),
      () => search(f.userId, "quartzi"),
      () => search(f.userId, "quartz", { includeRewound: true }),
    ];
    for (const run of searches) expect((await withProbe(run)).worstMs).toBeLessThan(STALL_LIMIT_MS);
    const four = await withProbe(() => Promise.all(searches.concat(searches[0]).map((run) => run())));
    expect(four.worstMs).toBeLessThan(STALL_LIMIT_MS);
    const [none, prefixed, rewound] = four.result;
    expect([none.items, prefixed.items]).toEqual([[], []]);
    expect(rewound.items).toHaveLength(20);
    const [hit] = rewound.items;
    expect(hit).toMatchObject({ invocation_id: "b39", rewound: true });
    expect(hit.snippet.text).toMatch(/^…w\d+ .* quartz and quartzite .*…$/);
    expect(hit.snippet.highlights.map(([s, e]) => hit.snippet.text.slice(s, e))).toEqual(["quartz", "quartzite"]);
  }, 120_000);
});
