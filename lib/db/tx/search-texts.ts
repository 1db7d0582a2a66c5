/**
 * What a search reads of the texts the index keeps (lib/db/tx/search-index.ts), never an event: whether a message
 * holds a word a long typed word starts, and the snippets of a page of hits — a short text whole, a long one as
 * the part or two around its first match, which its marks under the query's initials say (docs/semantics.md, "Search").
 */
import { type SQL, sql } from "drizzle-orm";
import {
  firstMatch,
  holdsWordStarting,
  queryInitials,
  type SearchQuery,
  type Snippet,
  snippetOf,
  snippetOfParts,
  windowParts,
} from "@/lib/session/search-text";
import { all, type Executor } from "../database";

interface Message {
  session_id: string;
  seq: number;
}

/** A message's key in what these return. */
export const keyOf = (m: Message) => `${m.session_id} ${m.seq}`;
const messageIn = (messages: Message[]) =>
  sql`(session_id, seq) IN (${sql.join(
    messages.map((m) => sql`(CAST(${m.session_id} AS TEXT), CAST(${m.seq} AS INTEGER))`),
    sql`, `,
  )})`;
const list = (values: string[]) =>
  sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  );

/**
 * The messages, of those given, with a word that starts with `prefix` (longer than the index's prefix entries, whose
 * first characters they hold): from the marks under its initials, or, when a text has none there, its first part.
 * A word a part cuts at its end is the start of a whole one under the same initials, so only marks decide then.
 */
export async function startingWith(tx: Executor, prefix: string, messages: Message[]): Promise<Set<string>> {
  if (messages.length === 0) return new Set();
  const [heads, marks] = await tx.batch([
    all<Message & { text: string }>(sql`SELECT session_id, seq, text FROM search_texts WHERE ${messageIn(messages)} AND part = 0`),
    all<Message & { marks: string }>(
      sql`SELECT session_id, seq, marks FROM search_marks WHERE ${messageIn(messages)} AND initials IN (${list(queryInitials({ words: [], prefix }))})`,
    ),
  ]);
  const query = { words: [], prefix };
  const marked = new Map(marks.map((m) => [keyOf(m), firstMatch([m.marks], query) !== null]));
  return new Set(heads.filter((h) => marked.get(keyOf(h)) ?? holdsWordStarting(h.text, prefix)).map(keyOf));
}

/** The snippet of each message (an event with words) for `query`, by `keyOf`. */
export async function snippetsOf(tx: Executor, query: SearchQuery, messages: Message[]): Promise<Map<string, Snippet>> {
  const snippets = new Map<string, Snippet>();
  if (messages.length === 0) return snippets;
  // Every text's first two parts (one: the whole text), and the marks of the long ones under the query's initials.
  const [heads, marks] = await tx.batch([
    all<Message & { part: number; text: string }>(
      sql`SELECT session_id, seq, part, text FROM search_texts WHERE ${messageIn(messages)} AND part <= 1`,
    ),
    all<Message & { marks: string }>(
      sql`SELECT session_id, seq, marks FROM search_marks WHERE ${messageIn(messages)} AND initials IN (${list(queryInitials(query))})`,
    ),
  ]);
  const parts = new Map(heads.map((h) => [`${keyOf(h)} ${h.part}`, h.text]));
  const long = messages.filter((m) => parts.has(`${keyOf(m)} 1`));
  for (const m of messages) {
    const whole = parts.get(`${keyOf(m)} 0`);
    if (whole !== undefined && !parts.has(`${keyOf(m)} 1`)) snippets.set(keyOf(m), snippetOf(whole, query));
  }
  const first = new Map(
    long.map((m) => [
      keyOf(m),
      firstMatch(
        marks.filter((k) => keyOf(k) === keyOf(m)).map((k) => k.marks),
        query,
      ),
    ]),
  );
  // The parts around each first match not read yet: one more statement.
  const missing: SQL[] = [];
  for (const m of long) {
    const [from, to] = windowParts(first.get(keyOf(m)) ?? null);
    for (let part = from; part <= to; part++)
      if (!parts.has(`${keyOf(m)} ${part}`))
        missing.push(sql`(CAST(${m.session_id} AS TEXT), CAST(${m.seq} AS INTEGER), CAST(${part} AS INTEGER))`);
  }
  if (missing.length) {
    const more = await tx.all<Message & { part: number; text: string }>(
      sql`SELECT session_id, seq, part, text FROM search_texts WHERE (session_id, seq, part) IN (${sql.join(missing, sql`, `)})`,
    );
    for (const p of more) parts.set(`${keyOf(p)} ${p.part}`, p.text);
  }
  for (const m of long) {
    const at = first.get(keyOf(m)) ?? null;
    const [from, to] = windowParts(at);
    const window = Array.from({ length: to - from + 1 }, (_, i) => parts.get(`${keyOf(m)} ${from + i}`) ?? "");
    snippets.set(keyOf(m), snippetOfParts(window, at, query));
  }
  return snippets;
}
