/**
 * Searching a user's chats, in the caller's read (docs/semantics.md, "Search"): the index finds the user's messages holding the
 * words, newest first (lib/db/tx/search-index.ts); each becomes a hit in every live chat of theirs that shows
 * it — the chat that stores it and the forks that read it — kept when that chat's current view shows it,
 * or, with `includeRewound`, marked `rewound` (the client switches to the version holding it).
 */
import { sql } from "drizzle-orm";
import { walkRewinds } from "@/lib/session/effective-history";
import { queryEntries, type SearchQuery } from "@/lib/session/search-text";
import type { Segment } from "@/lib/session/types";
import { isVisible } from "@/lib/session/versions";
import { all, type Executor, run } from "../database";
import { decodeCursor, encodeCursor, type Page } from "../paging";
import type { SearchHit } from "../types";
import { linksOf } from "./layout";
import { eventIdIn, type Log, logOf, type Piece } from "./log";
import { ownerKey } from "./search-index";
import { keyOf, snippetsOf, startingWith } from "./search-texts";
import { liveOf } from "./sessions";

interface Candidate {
  session_id: string;
  seq: number;
  pos: number;
  id: string;
  invocation_id: string;
  author: string;
  timestamp: number;
}

interface Chat {
  id: string;
  name: string;
  last_seq: number;
  inherited: string | null;
  deleted_at: number | null;
}

/** Messages examined per request at most (never their events: what a hit shows is in the index): a page may then hold fewer hits than asked, with a cursor to go on. */
const MAX_SCANNED = 1000;
const MAX_BATCH = 200;

const ftsWord = (word: string) => `"${word.replaceAll('"', '""')}"`;
const tsWord = (word: string) => `'${word.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;

/** The user's messages holding the query's words, stored before position `before`, newest first. */
function candidates(tx: Executor, keys: string[], query: SearchQuery, before: number, limit: number): Promise<Candidate[]> {
  const { all, anyOf } = queryEntries(query);
  if (tx.dialect.name === "sqlite") {
    const or = (words: string[]) => `(${words.map(ftsWord).join(" OR ")})`;
    const match = [or(keys), ...all.map(ftsWord), ...(anyOf.length ? [or(anyOf)] : [])].join(" AND ");
    // Only columns stored before `data`: SQLite reaches a later one through the whole value.
    return tx.all<Candidate>(sql`
      SELECT e.session_id, e.seq, search_fts.rowid AS pos, e.id, e.invocation_id, e.author, e.timestamp
      FROM search_fts JOIN events e ON e.search_pos = search_fts.rowid
      WHERE search_fts MATCH ${match} AND search_fts.rowid < CAST(${before} AS INTEGER) ORDER BY search_fts.rowid DESC LIMIT ${limit}`);
  }
  // One branch per key, each planned for its own words: the planner reads a user's rows newest first when the
  // words are in most of them, and looks them up in the inverted index when they are rare (both indexes: schema).
  const tsquery = (key: string) => [key, ...all].map(tsWord).join(" & ") + (anyOf.length ? ` & (${anyOf.map(tsWord).join(" | ")})` : "");
  const branches = keys.map(
    (key) => sql`(SELECT session_id, seq, search_pos AS pos, id, invocation_id, author, timestamp FROM events
      WHERE search_owner = ${key} AND search_doc @@ CAST(${tsquery(key)} AS tsquery) AND search_pos < ${before}
      ORDER BY search_pos DESC LIMIT ${limit})`,
  );
  return tx.all<Candidate>(sql`SELECT * FROM (${sql.join(branches, sql` UNION ALL `)}) c ORDER BY pos DESC LIMIT ${limit}`);
}

const CHAT_COLUMNS = sql`id, name, last_seq, inherited, deleted_at`;

/**
 * The user's chats as a search needs them: a candidate's store (a tombstone is shown only through its forks),
 * which live forks read which stored rows, and each chat's current view, read once per chat.
 */
function chatBook(tx: Executor, userId: string) {
  const chats = new Map<string, Chat>();
  const views = new Map<string, Segment[]>();
  let readers: { chat: Chat; log: Log; piece: Piece }[] | undefined;
  const showing = (store: string, seq: number): { chat: Chat; log: Log }[] => {
    const own = chats.get(store);
    // Another user's row never gets here (the index is asked for the user's keys); if one did, it has no chat.
    if (!own) return [];
    const forks = (readers ?? []).filter((r) => r.piece.session === store && r.piece.from <= seq && seq <= r.piece.to);
    return [...(own.deleted_at === null ? [{ chat: own, log: logOf(own) }] : []), ...forks];
  };
  return {
    /** Reads what the candidates need: their stores, the user's forks (once) and the views of the chats showing them. */
    async load(rows: Candidate[]) {
      const unknown = [...new Set(rows.map((r) => r.session_id))].filter((id) => !chats.has(id));
      const [found, forks] = await tx.batch([
        // Stores may be tombstones (their rows reach the user through forks): owned, not necessarily live. A chat
        // being imported is no store yet: no hit shows it.
        unknown.length
          ? all<Chat>(
              sql`SELECT ${CHAT_COLUMNS} FROM sessions WHERE user_id = ${userId} AND import_lease_until IS NULL AND id IN (${sql.join(
                unknown.map((id) => sql`${id}`),
                sql`, `,
              )})`,
            )
          : null,
        readers
          ? null
          : all<Chat>(sql`SELECT ${CHAT_COLUMNS} FROM sessions WHERE ${liveOf(userId)} AND inherited IS NOT NULL ORDER BY activity DESC`),
      ]);
      for (const chat of found ?? []) chats.set(chat.id, chat);
      readers ??= (forks ?? []).flatMap((chat) => {
        const log = logOf(chat);
        return log.pieces.flatMap((piece) => (piece.session === chat.id ? [] : [{ chat, log, piece }]));
      });
      // The views not read yet, in one batch: one round trip on PostgreSQL.
      const unseen = new Map(rows.flatMap((r) => showing(r.session_id, r.seq)).map((shown) => [shown.chat.id, shown]));
      for (const id of views.keys()) unseen.delete(id);
      const needed = [...unseen.values()];
      const links = await tx.batch(needed.map(({ chat, log }) => (chat.last_seq === 0 ? null : linksOf(log))));
      for (const [i, { chat }] of needed.entries()) views.set(chat.id, walkRewinds(chat.last_seq, links[i] ?? []).segments);
    },
    showing,
    view: (chat: Chat) => views.get(chat.id) as Segment[],
  };
}

/** The user's hits for a parsed query (searchChats, lib/db/search.ts), in the caller's read. */
export async function searchTx(
  tx: Executor,
  userId: string,
  query: SearchQuery,
  input: { includeRewound?: boolean; limit: number; before?: string },
): Promise<Page<SearchHit>> {
  const limit = input.limit;
  // A typed word longer than the index's prefix entries is checked against the texts it keeps, not looked up as a
  // prefix: the index would gather every user's words that start so.
  const { startsWith } = queryEntries(query);
  const [, merged] = await tx.batch([
    // Each branch of the query is planned for its own words (a generic plan would pick one path for all).
    tx.dialect.name === "postgres" ? run(sql`SET LOCAL plan_cache_mode = force_custom_plan`) : null,
    all<{ key: string }>(sql`SELECT key FROM search_keys WHERE user_id = ${userId}`),
  ]);
  const keys = [ownerKey(userId), ...merged.map((m) => m.key)];
  const book = chatBook(tx, userId);
  const hits: { row: Candidate; hit: Omit<SearchHit, "snippet"> }[] = [];
  let before = input.before === undefined ? Number.MAX_SAFE_INTEGER : decodeCursor(input.before);
  let scanned = 0;
  let more = true;
  let next: string | null = null;
  // Twice the page, then twice as many again each time they held too few hits (rewound ones, say), up to 200,
  // never past MAX_SCANNED.
  let batch = Math.min(MAX_BATCH, Math.max(20, 2 * limit));
  scan: while (more && scanned < MAX_SCANNED) {
    const rows = await candidates(tx, keys, query, before, batch);
    more = rows.length === batch;
    await book.load(rows);
    const shown = rows.map((row) => hitsOf(book, row, input.includeRewound));
    const starting = startsWith
      ? await startingWith(
          tx,
          startsWith,
          rows.filter((_, i) => shown[i].length),
        )
      : null;
    for (const [i, row] of rows.entries()) {
      const found = !starting || starting.has(keyOf(row)) ? shown[i] : [];
      if (found.length && hits.length >= limit) {
        next = encodeCursor(before);
        break scan;
      }
      hits.push(...found.map((hit) => ({ row, hit })));
      before = Number(row.pos);
      scanned += 1;
    }
    if (hits.length >= limit) break;
    batch = Math.min(MAX_BATCH, 2 * batch, MAX_SCANNED - scanned);
  }
  if (next === null && more) next = encodeCursor(before);
  const snippets = await snippetsOf(tx, query, [...new Map(hits.map(({ row }) => [row.pos, row])).values()]);
  const none = { text: "", highlights: [] };
  return {
    items: hits.map(({ row, hit }) => ({ ...hit, snippet: snippets.get(keyOf(row)) ?? none })),
    nextBefore: next,
  };
}

/** A candidate's hits: one per live chat of the user that shows it, in its current view unless rewound ones are asked for. */
function hitsOf(book: ReturnType<typeof chatBook>, row: Candidate, includeRewound = false): Omit<SearchHit, "snippet">[] {
  const hits: Omit<SearchHit, "snippet">[] = [];
  for (const { chat, log } of book.showing(row.session_id, row.seq)) {
    const rewound = !isVisible(row.seq, book.view(chat));
    if (rewound && !includeRewound) continue;
    hits.push({
      session_id: chat.id,
      session_name: chat.name,
      invocation_id: row.invocation_id,
      event_id: eventIdIn(log, row.session_id, row.id),
      author: row.author,
      timestamp: new Date(row.timestamp * 1000).toISOString(),
      rewound,
    });
  }
  return hits;
}
