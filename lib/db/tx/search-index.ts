/**
 * The full-text index's write side (docs/semantics.md, "Search"). Every event with text is indexed in the
 * transaction that stores it, by the statements that store it (`appendEventsTx`), so the index can never
 * drift from the log: SQLite keeps its words in the FTS5 table `search_fts` under the event's `search_pos`
 * (a trigger drops them with the event), PostgreSQL in the event's own `search_doc` column. The words come
 * from lib/session/search-text.ts, so both dialects hold the same ones. Each entry starts with the key of
 * the user who wrote it: a search asks for the searcher's keys first, so it only ever meets their rows.
 */
import { createHash } from "node:crypto";
import { type SQL, sql } from "drizzle-orm";
import { indexedWords, searchableText } from "@/lib/session/search-text";
import type { AdkEvent } from "@/lib/session/types";
import { type Executor, inBatches } from "../database";

/** A user's key in the index: a word no text can hold (words never contain `_`). */
export const ownerKey = (userId: string) => `_${createHash("sha256").update(userId).digest("hex").slice(0, 24)}`;

/** What the index holds for an event `userId` writes: their key and the event's words; null when it has none. */
export function indexEntry(userId: string, event: Pick<AdkEvent, "content" | "partial">): string | null {
  const words = indexedWords(searchableText(event));
  return words && `${ownerKey(userId)} ${words}`;
}

/** An entry's bytes, charged to the user's quota with its event. */
export const entryBytes = (entry: string | null) => (entry ? Buffer.byteLength(entry) : 0);

/** The events columns an insert fills for the index. */
export const searchColumns = (tx: Executor) =>
  sql.raw(tx.dialect.name === "sqlite" ? "search_pos" : "search_pos, search_owner, search_doc");

/**
 * The index rows of events inserted together, in order: `values(entry)` is one event's search columns, and
 * `statements()` what must run after the insert (SQLite: the FTS5 rows; on PostgreSQL the columns are all).
 * Positions grow with every event stored (a sequence; on SQLite, whose writes are serial, the highest so far).
 */
export async function searchRows(tx: Executor, entries: (string | null)[]) {
  if (tx.dialect.name === "postgres") {
    return {
      values(entry: string | null) {
        const owner = entry === null ? null : entry.slice(0, entry.indexOf(" "));
        return sql`nextval('search_positions'), ${owner}, array_to_tsvector(string_to_array(${entry}, ' '))`;
      },
      statements: (): SQL[] => [],
    };
  }
  let next = entries.some((e) => e !== null) ? await nextPosition(tx) : 0;
  const rows: SQL[] = [];
  return {
    values(entry: string | null) {
      if (entry === null) return sql`NULL`;
      rows.push(sql`(${next}, ${entry})`);
      return sql`${next++}`;
    },
    statements: () => (rows.length ? [sql`INSERT INTO search_fts (rowid, words) VALUES ${sql.join(rows, sql`, `)}`] : []),
  };
}

async function nextPosition(tx: Executor): Promise<number> {
  const row = await tx.one<{ last: number | null }>(sql`SELECT MAX(search_pos) AS last FROM events WHERE search_pos IS NOT NULL`);
  return Number(row?.last ?? 0) + 1;
}

/**
 * Indexes rows stored without their index rows, under `userId`'s key: a chat's rows from before search
 * existed (at start-up, lib/db/prepare.ts), or the rows a fork copies in from other chats (lib/db/forks.ts).
 */
export async function indexStoredRows(tx: Executor, sessionId: string, userId: string, seqs?: { from: number; to: number }) {
  const range = seqs ? sql` AND seq BETWEEN ${seqs.from} AND ${seqs.to}` : sql``;
  const stored = await tx.all<{ seq: number; data: string }>(sql`
    SELECT seq, data FROM events WHERE session_id = ${sessionId}${range} ORDER BY seq`);
  const indexed = stored.flatMap((r) => {
    const entry = indexEntry(userId, JSON.parse(r.data) as AdkEvent);
    return entry ? [{ seq: r.seq, entry }] : [];
  });
  for (const batch of inBatches(indexed, 200)) {
    const search = await searchRows(
      tx,
      batch.map((r) => r.entry),
    );
    const values = sql.join(
      batch.map((r) => sql`(CAST(${r.seq} AS INTEGER), ${search.values(r.entry)})`),
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
}
