/**
 * `npm run bench -- --hardening`: the heavy requests a hostile user can make (many rewind markers in one
 * append, deleting the source of many forks, a long chain of forks, searching many rewound 1 MB messages,
 * heavy imports: bench/import-hardening.ts),
 * each timed with what another user's small request waited meanwhile; and what a guest under a 1 MB quota
 * manages to store.
 */
import { sql } from "drizzle-orm";
import { getDb } from "@/lib/db/connection";
import { appendEvents, createSession, createUser, deleteSession, forkSession, rewindSession, searchChats } from "@/lib/db/queries";
import { newInvocationId } from "@/lib/session/rewind";
import type { AdkEvent } from "@/lib/session/types";
import { storedBytesOf, writeEverywhere } from "../tests/support/bytes";
import { withProbe } from "../tests/support/stall";
import { importsBench } from "./import-hardening";
import { middle } from "./measure";

const MARKERS = Number(process.env.BENCH_MARKERS ?? 10_000);
const FORKS = Number(process.env.BENCH_FORKS ?? 95);
const CHAIN = Number(process.env.BENCH_CHAIN ?? 2000);
const BIG_MESSAGES = Number(process.env.BENCH_BIG_MESSAGES ?? 306);

const marker = (target: string): AdkEvent => ({
  id: crypto.randomUUID(),
  invocation_id: newInvocationId(),
  author: "user",
  timestamp: Date.now() / 1000,
  actions: { state_delta: {}, artifact_delta: {}, rewind_before_invocation_id: target },
});

const turn = (text: string, bytes = 0): AdkEvent => ({
  id: crypto.randomUUID(),
  invocation_id: newInvocationId(),
  author: "user",
  timestamp: Date.now() / 1000,
  content: { role: "user", parts: [{ text: text + "x".repeat(bytes) }] },
  actions: { state_delta: {}, artifact_delta: {} },
});

/** `heavy`'s time and the longest another user's request took meanwhile, or the error it failed with. */
async function probed(heavy: () => Promise<unknown>) {
  try {
    const { ms, worstMs } = await withProbe(heavy);
    return { ms: Math.round(ms), otherUserWorstMs: Math.round(worstMs) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

async function markersBench() {
  const userId = await createUser();
  const { id } = await createSession(userId, { name: "markers" });
  const first = turn("first");
  await appendEvents(userId, id, [first]);
  for (let made = 0; made < MARKERS; made += 1000) {
    await appendEvents(
      userId,
      id,
      Array.from({ length: Math.min(1000, MARKERS - made) }, () => marker(first.invocation_id)),
    );
  }
  return probed(() =>
    appendEvents(
      userId,
      id,
      Array.from({ length: 1000 }, () => marker(first.invocation_id)),
    ),
  );
}

async function forkSourceBench() {
  const userId = await createUser();
  const { id } = await createSession(userId, { name: "10 MB" });
  for (let i = 0; i < 10; i++)
    await appendEvents(
      userId,
      id,
      Array.from({ length: 10 }, (_, j) => turn(`t${i}.${j}`, 100_000)),
    );
  for (let i = 0; i < FORKS; i++) await forkSession(userId, id);
  return { forks: FORKS, ...(await probed(() => deleteSession(userId, id))) };
}

async function chainBench() {
  // Each fork is charged for what it reads as if copied: 2,000 of a growing chat pass the default 1 GiB.
  process.env.RETRACE_MAX_STORED_BYTES = String(1e12);
  const userId = await createUser();
  let id = (await createSession(userId, { name: "chain" })).id;
  const figures: Record<number, unknown> = {};
  const marks = new Set([10, 100, 500, 1000, 2000].filter((d) => d <= CHAIN));
  for (let depth = 1; depth <= CHAIN; depth++) {
    try {
      const [appended] = await appendEvents(userId, id, [turn(`turn ${depth}`)]);
      if (marks.has(depth)) {
        const times = { append: [] as number[], rewind: [] as number[], fork: [] as number[] };
        for (let i = 0; i < 5; i++) {
          let t = performance.now();
          const [extra] = await appendEvents(userId, id, [turn("extra")]);
          times.append.push(performance.now() - t);
          t = performance.now();
          await rewindSession(userId, id, extra.invocation_id);
          times.rewind.push(performance.now() - t);
        }
        const t = performance.now();
        const probe = await withProbe(() => forkSession(userId, id, { invocationId: appended.invocation_id }));
        times.fork.push(performance.now() - t);
        figures[depth] = {
          appendMs: +middle(times.append).toFixed(1),
          rewindMs: +middle(times.rewind).toFixed(1),
          forkMs: +middle(times.fork).toFixed(1),
          otherUserWorstMs: Math.round(probe.worstMs),
        };
      }
      id = (await forkSession(userId, id)).id;
    } catch (error) {
      figures[depth] = { error: (error as Error).message };
      break;
    }
  }
  delete process.env.RETRACE_MAX_STORED_BYTES;
  return figures;
}

/** About 1 MB of many distinct words, `quartz` and `quartzite` once, about 90,000 characters in. */
const bigText = (i: number) => {
  const words = Array.from({ length: 160_000 }, (_, n) => `w${(n * 7919 + i) % 30_000}`);
  words.splice(14_000, 0, "quartz and quartzite");
  return words.join(" ");
};

/** Searches over BIG_MESSAGES messages of 1 MB, all rewound: each search meets them all, and the snippets are deep in. */
async function bigSearchBench() {
  const userId = await createUser();
  const { id } = await createSession(userId, { name: "big messages" });
  let first = "";
  for (let i = 0; i < BIG_MESSAGES; i++) {
    const [stored] = await appendEvents(userId, id, [{ ...turn(""), content: { role: "user", parts: [{ text: bigText(i) }] } }]);
    first ||= stored.invocation_id;
  }
  await rewindSession(userId, id, first);
  const search =
    (q: string, includeRewound = false) =>
    () =>
      searchChats(userId, { q, includeRewound });
  return {
    messages: BIG_MESSAGES,
    aWordInAll: await probed(search("quartz")),
    sevenLetters: await probed(search("quartzi")),
    withRewound: await probed(search("quartz", true)),
    fourAtOnce: await probed(() =>
      Promise.all([search("quartz"), search("quartzi"), search("quartz", true), search("quartz")].map((s) => s())),
    ),
  };
}

async function quotaBench() {
  const quota = 1_000_000;
  process.env.RETRACE_MAX_STORED_BYTES = String(quota);
  try {
    const userId = await createUser();
    const refused = await writeEverywhere(userId, { rounds: Number(process.env.BENCH_QUOTA_ROUNDS ?? 20) });
    return { quota, stored: await storedBytesOf(await getDb(), userId), refusedWrites: refused };
  } finally {
    delete process.env.RETRACE_MAX_STORED_BYTES;
  }
}

export async function hardeningBench() {
  const only = process.env.BENCH_HARDENING?.split(",");
  const want = (name: string) => !only || only.includes(name);
  const results: Record<string, unknown> = {};
  if (want("markers")) results.markers = await markersBench();
  if (want("forks")) results.forkSourceDelete = await forkSourceBench();
  if (want("chain")) results.forkChain = await chainBench();
  if (want("search")) results.bigMessagesSearch = await bigSearchBench();
  if (want("quota")) results.quota = await quotaBench();
  if (want("imports")) results.imports = await importsBench();
  const db = await getDb();
  if (db.dialect.name === "sqlite") await db.run(sql`PRAGMA wal_checkpoint(TRUNCATE)`);
  return results;
}
