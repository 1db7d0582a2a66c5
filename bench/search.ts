/**
 * `npm run bench -- --search` (`-- --db postgres`): search over 1,000,000 stored messages (BENCH_SEARCH_MESSAGES).
 * The messages go in through the real append path (`appendEvents`, 98 events a call), so the index is the
 * one the app writes: chats of 100 messages (49 turns, then the last one edited: a rewind and a new turn,
 * so 2 of each chat's messages are rewound), every 10th chat forked before its middle turn; one user in
 * twenty chats is the same heavy user (50,000 messages), the rest spread over 999 users. Then it times
 * typical queries through the store for that heavy user and for ten ordinary ones, and an append.
 */
import { statSync } from "node:fs";
import { sql } from "drizzle-orm";
import { getDb } from "@/lib/db/connection";
import { appendEvents, createSession, createUser, forkSession, rewindSession, searchChats } from "@/lib/db/queries";
import { newInvocationId } from "@/lib/session/rewind";
import type { AdkEvent } from "@/lib/session/types";
import { DIALECT } from "./env";
import { appendInvocation } from "./fixtures";
import { median } from "./measure";
import { corpus, random } from "./search-corpus";

const MESSAGES = Number(process.env.BENCH_SEARCH_MESSAGES ?? 1_000_000);
const PER_CHAT = 100;
const USERS = 1000;
const HEAVY_EVERY = 20;
/** Chats built at once: PostgreSQL serves several connections in parallel; SQLite writes one at a time anyway. */
const BUILDERS = DIALECT === "postgres" ? 4 : 1;

const message = (invocationId: string, author: string, text: string): AdkEvent => ({
  id: crypto.randomUUID(),
  invocation_id: invocationId,
  author,
  timestamp: Date.now() / 1000,
  content: { role: author === "user" ? "user" : "model", parts: [{ text }] },
  actions: { state_delta: {}, artifact_delta: {} },
});

async function buildChat(userId: string, n: number, text: () => string) {
  const chat = await createSession(userId, { name: `chat ${n}` });
  const turns = (PER_CHAT - 2) / 2;
  const ids = Array.from({ length: turns }, newInvocationId);
  await appendEvents(
    userId,
    chat.id,
    ids.flatMap((id) => [message(id, "user", text()), message(id, "demo", text())]),
  );
  await rewindSession(userId, chat.id, ids[turns - 1], "edit");
  const edit = newInvocationId();
  await appendEvents(userId, chat.id, [message(edit, "user", text()), message(edit, "demo", text())]);
  if (n % 10 === 0) await forkSession(userId, chat.id, { invocationId: ids[(turns / 2) | 0] });
}

/** The users and their chats, built by BUILDERS at once; the heavy user's chats are spread among everyone's. */
async function build(text: () => string) {
  const heavy = await createUser();
  const users = await Promise.all(Array.from({ length: USERS - 1 }, () => createUser()));
  const chats = Math.ceil(MESSAGES / PER_CHAT);
  let next = 0;
  const started = performance.now();
  const builder = async () => {
    for (let n = next++; n < chats; n = next++) {
      await buildChat(n % HEAVY_EVERY === 0 ? heavy : users[n % users.length], n, text);
      if ((n + 1) % (chats / 10) === 0)
        console.log(`  ${((n + 1) * PER_CHAT).toLocaleString()} messages, ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
  };
  await Promise.all(Array.from({ length: BUILDERS }, builder));
  return { heavy, ordinary: users.slice(0, 10), seconds: (performance.now() - started) / 1000 };
}

type Query = { kind: string; q: string; includeRewound?: boolean; page?: 2 };

/** The queries a person types, three of each kind (words by rank in the vocabulary: 0 is the commonest). */
function queries(words: string[]): Query[] {
  const long = words.slice(150, 3000).filter((w) => w.length >= 8);
  return [0, 1, 2].flatMap((k) => [
    { kind: "a common word", q: words[1 + k] },
    { kind: "a word of middling frequency", q: words[200 + k * 7] },
    { kind: "a rare word", q: words[30_000 + k * 101] },
    { kind: "two words", q: `${words[5 + k]} ${words[300 + k * 11]}` },
    { kind: "typing a word: 3 letters", q: long[k].slice(0, 3) },
    { kind: "typing a word: 5 letters", q: long[k + 3].slice(0, 5) },
    { kind: "typing a word: 7 letters", q: long[k + 6].slice(0, 7) },
    { kind: "no such word", q: `zzq${k}xv` },
    { kind: "with rewound messages", q: words[210 + k * 5], includeRewound: true },
    { kind: "the second page", q: words[1 + k], page: 2 },
  ]);
}

async function timed(userId: string, query: Query) {
  const run = async (before?: string) => searchChats(userId, { q: query.q, includeRewound: query.includeRewound, before });
  const first = query.page ? await run() : undefined;
  const start = performance.now();
  const page = await run(first?.nextBefore ?? undefined);
  return { ms: performance.now() - start, hits: page.items.length };
}

const percentile = (times: number[], p: number) =>
  [...times].sort((a, b) => a - b)[Math.min(times.length - 1, Math.floor(times.length * p))];

async function indexSizes() {
  const db = await getDb();
  if (DIALECT === "sqlite") {
    const file = process.env.DATABASE_PATH as string;
    const wal = statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    return { databaseMB: Math.round((statSync(file).size + wal) / 1e6) };
  }
  const mb = (relation: string) => sql`ROUND(pg_total_relation_size(${relation}) / 1e6)`;
  return (await db.one<Record<string, number>>(
    sql`SELECT ${mb("events")} AS "eventsMB", ${mb("events_search")} AS "ginMB", ${mb("events_search_owner")} AS "ownerIndexMB",
      ${mb("search_texts")} + ${mb("search_marks")} AS "snippetTextsMB"`,
  )) as Record<string, number>;
}

export async function searchBench() {
  const rnd = random();
  const { words, message: text } = corpus(rnd);
  console.log(`building ${MESSAGES.toLocaleString()} messages through the append path on ${DIALECT}…`);
  const built = await build(text);
  // A running PostgreSQL's autovacuum analyzes the table and folds the inverted index's pending entries in;
  // then a few more chats arrive, as they always do, and sit in those pending entries while we measure.
  if (DIALECT === "postgres") await (await getDb()).run(sql`VACUUM ANALYZE events`);
  const later = await createUser();
  for (let n = 0; n < 100; n++) await buildChat(later, n + 1, text);
  const users = [
    { name: "heavy user (50,000 messages)", id: built.heavy },
    ...built.ordinary.map((id) => ({ name: "ordinary user (about 950 messages)", id })),
  ];
  const list = queries(words);
  for (const user of users) for (const query of list) await timed(user.id, query); // warm-up: caches, plans
  const rows: { user: string; kind: string; ms: number; hits: number }[] = [];
  for (let round = 0; round < 3; round++) {
    for (const user of users) for (const query of list) rows.push({ user: user.name, kind: query.kind, ...(await timed(user.id, query)) });
  }
  const summary = (subset: typeof rows) => ({
    p50: Number(
      percentile(
        subset.map((r) => r.ms),
        0.5,
      ).toFixed(2),
    ),
    p95: Number(
      percentile(
        subset.map((r) => r.ms),
        0.95,
      ).toFixed(2),
    ),
    hits: Math.round(subset.reduce((n, r) => n + r.hits, 0) / subset.length),
  });
  const append = await createSession(built.heavy, { name: "append" });
  return {
    messages: MESSAGES + 100 * PER_CHAT,
    buildSeconds: Math.round(built.seconds),
    ...(await indexSizes()),
    queries: rows.length,
    all: summary(rows),
    byUser: Object.fromEntries([...new Set(rows.map((r) => r.user))].map((u) => [u, summary(rows.filter((r) => r.user === u))])),
    byKind: Object.fromEntries([...new Set(rows.map((r) => r.kind))].map((k) => [k, summary(rows.filter((r) => r.kind === k))])),
    appendOneInvocationMs: await median(100, (i) => appendInvocation(built.heavy, append.id, i, false)),
    appendStreamedMs: await median(50, (i) => appendInvocation(built.heavy, append.id, i, true)),
  };
}
