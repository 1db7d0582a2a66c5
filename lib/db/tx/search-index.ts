/**
 * The full-text index's write side (docs/semantics.md, "Search"). Every event with text is indexed in the
 * transaction that stores it, by the statements that store it (`appendEventsTx`), so the index can never
 * drift from the log: SQLite keeps its words in the FTS5 table `search_fts` under the event's `search_pos`
 * (a trigger drops them with the event), PostgreSQL in the event's own `search_doc` column; both keep what its
 * snippets are cut from in `search_texts` and `search_marks`, which go with the event (foreign keys). The words
 * come from lib/session/search-text.ts, so both dialects hold the same ones. Each entry starts with the key of
 * the user who wrote it: a search asks for the searcher's keys first, so it only ever meets their rows.
 */
import { createHash } from "node:crypto";
import { type SQL, sql } from "drizzle-orm";
import { indexedWords, searchableText, snippetSource } from "@/lib/session/search-text";
import type { AdkEvent } from "@/lib/session/types";
import { type Executor, inBatches } from "../database";

/** A user's key in the index: a word no text can hold (words never contain `_`). */
export const ownerKey = (userId: string) => `_${createHash("sha256").update(userId).digest("hex").slice(0, 24)}`;

/** What the index holds for an event: its writer's key and its words, and what its snippets are cut from. */
export interface IndexEntry extends ReturnType<typeof snippetSource> {
  words: string;
}

/** The index entry of an event `userId` writes; null when it has no words. */
export function indexEntry(userId: string, event: Pick<AdkEvent, "content" | "partial">): IndexEntry | null {
  const markdown = searchableText(event);
  const words = indexedWords(markdown);
  return words === null ? null : { words: `${ownerKey(userId)} ${words}`, ...snippetSource(markdown) };
}

const len = (text: string) => Buffer.byteLength(text);

/** An entry's bytes, charged to the user's quota with its event (whose ROW_BYTES cover its index rows' keys). */
export const entryBytes = (entry: IndexEntry | null) =>
  entry
    ? len(entry.words) +
      entry.parts.reduce((n, part) => n + len(part), 0) +
      [...entry.marks].reduce((n, [initials, marks]) => n + len(initials) + len(marks), 0)
    : 0;

/** The events columns an insert fills for the index. */
export const searchColumns = (tx: Executor) =>
  sql.raw(tx.dialect.name === "sqlite" ? "search_pos" : "search_pos, search_owner, search_doc");

/**
 * The statements that store the snippets' texts and marks of a chat's events, after the events: rows handed over
 * as one JSON value each, so an append of many long messages stays within either database's limit on parameters.
 */
function textStatements(tx: Executor, sessionId: string, events: { seq: number; entry: IndexEntry }[]): SQL[] {
  const parts = events.flatMap(({ seq, entry }) => entry.parts.map((text, part) => ({ seq, part, text })));
  const marks = events.flatMap(({ seq, entry }) => [...entry.marks].map(([initials, marks]) => ({ seq, initials, marks })));
  const rows = (values: object[], columns: [string, string][]) =>
    tx.dialect.name === "sqlite"
      ? sql`SELECT ${sessionId}, ${sql.raw(columns.map(([c]) => `value ->> '${c}'`).join(", "))} FROM json_each(${JSON.stringify(values)})`
      : sql`SELECT CAST(${sessionId} AS text), ${sql.raw(columns.map(([c]) => `r.${c}`).join(", "))}
          FROM json_to_recordset(CAST(${JSON.stringify(values)} AS json)) AS r(${sql.raw(columns.map(([c, type]) => `${c} ${type}`).join(", "))})`;
  return [
    ...(parts.length
      ? [
          sql`INSERT INTO search_texts (session_id, seq, part, text) ${rows(parts, [
            ["seq", "integer"],
            ["part", "integer"],
            ["text", "text"],
          ])}`,
        ]
      : []),
    ...(marks.length
      ? [
          sql`INSERT INTO search_marks (session_id, seq, initials, marks) ${rows(marks, [
            ["seq", "integer"],
            ["initials", "text"],
            ["marks", "text"],
          ])}`,
        ]
      : []),
  ];
}

const tsvector = (words: string | null) => sql`array_to_tsvector(string_to_array(${words}, ' '))`;

/**
 * The index rows of a chat's events inserted together, in order: `values(seq, entry)` is one event's search
 * columns, and `statements()` what must run after the insert (the texts and marks; on SQLite the FTS5 rows too).
 * Positions grow with every event stored (a sequence; on SQLite, whose writes are serial, the highest so far).
 */
export async function searchRows(tx: Executor, sessionId: string, entries: (IndexEntry | null)[]) {
  const indexed: { seq: number; entry: IndexEntry }[] = [];
  const words: SQL[] = [];
  if (tx.dialect.name === "postgres") {
    return {
      values(seq: number, entry: IndexEntry | null) {
        if (entry) indexed.push({ seq, entry });
        const owner = entry === null ? null : entry.words.slice(0, entry.words.indexOf(" "));
        return sql`nextval('search_positions'), ${owner}, ${tsvector(entry?.words ?? null)}`;
      },
      statements: () => textStatements(tx, sessionId, indexed),
    };
  }
  let next = entries.some((e) => e !== null) ? await nextPosition(tx) : 0;
  return {
    values(seq: number, entry: IndexEntry | null) {
      if (entry === null) return sql`NULL`;
      indexed.push({ seq, entry });
      words.push(sql`(${next}, ${entry.words})`);
      return sql`${next++}`;
    },
    statements: (): SQL[] =>
      words.length
        ? [sql`INSERT INTO search_fts (rowid, words) VALUES ${sql.join(words, sql`, `)}`, ...textStatements(tx, sessionId, indexed)]
        : [],
  };
}

async function nextPosition(tx: Executor): Promise<number> {
  const row = await tx.one<{ last: number | null }>(sql`SELECT MAX(search_pos) AS last FROM events WHERE search_pos IS NOT NULL`);
  return Number(row?.last ?? 0) + 1;
}

/**
 * Indexes rows stored without their index rows, under `userId`'s key: a chat's rows from before search
 * existed (at start-up, lib/db/prepare.ts), or the rows a fork copies in from other chats (lib/db/forks.ts).
 * Rows whose words were indexed before the index kept texts get just those (at start-up too).
 */
export async function indexStoredRows(tx: Executor, sessionId: string, userId: string, seqs?: { from: number; to: number }) {
  const range = seqs ? sql` AND e.seq BETWEEN ${seqs.from} AND ${seqs.to}` : sql``;
  const indexed = tx.dialect.name === "sqlite" ? sql`e.search_pos IS NOT NULL` : sql`e.search_doc IS NOT NULL`;
  const stored = await tx.all<{ seq: number; data: string; indexed: boolean | number }>(sql`
    SELECT e.seq, e.data, ${indexed} AS indexed FROM events e
    WHERE e.session_id = ${sessionId}${range}
      AND NOT EXISTS (SELECT 1 FROM search_texts t WHERE t.session_id = e.session_id AND t.seq = e.seq)
    ORDER BY e.seq`);
  const entries = stored.flatMap((r) => {
    const entry = indexEntry(userId, JSON.parse(r.data) as AdkEvent);
    return entry ? [{ seq: r.seq, entry, indexed: Boolean(r.indexed) }] : [];
  });
  for (const batch of inBatches(
    entries.filter((r) => !r.indexed),
    200,
  )) {
    const search = await searchRows(
      tx,
      sessionId,
      batch.map((r) => r.entry),
    );
    const values = sql.join(
      batch.map((r) => sql`(CAST(${r.seq} AS INTEGER), ${search.values(r.seq, r.entry)})`),
      sql`, `,
    );
    const set = tx.dialect.name === "sqlite" ? sql`v (seq, pos)` : sql`v (seq, pos, owner, doc)`;
    const columns =
      tx.dialect.name === "sqlite" ? sql`search_pos = v.pos` : sql`search_pos = v.pos, search_owner = v.owner, search_doc = v.doc`;
    await tx.run(sql`
      WITH ${set} AS (VALUES ${values})
      UPDATE events SET ${columns} FROM v WHERE events.session_id = ${sessionId} AND events.seq = v.seq`);
    for (const statement of search.statements()) await tx.run(statement);
  }
  for (const batch of inBatches(
    entries.filter((r) => r.indexed),
    200,
  )) {
    for (const statement of textStatements(tx, sessionId, batch)) await tx.run(statement);
  }
}
