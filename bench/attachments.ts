/**
 * `npm run bench -- --attachments` (`--db postgres`): on a production `next start` instance, a 200 MB upload streamed
 * to the upload route 64 KiB at a time while the instance's resident memory is read from /proc every 10 ms, its
 * SHA-256 checked; then a chat whose turns attach 500 MB, forked over HTTP (a duplicate, and one before its last
 * turn), five of each timed, with what each fork adds to the database and to the user's quota.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import { issueToken } from "@/lib/accounts/guest-token";
import { getAgent } from "@/lib/agent/registry";
import { startTurn } from "@/lib/agent/runtime";
import { getDb } from "@/lib/db/connection";
import { createSession, createUser, storeUpload } from "@/lib/db/queries";
import { PORT } from "./env";
import { build, type Server, startServer } from "./servers";

const UPLOAD_MB = 200;
const CHAT_MB = 500;
const FILE_MB = 100;
const FORKS = 5;
const PIECE = 64 * 1024;
const MB = 1024 ** 2;

/** `mb` MiB in pieces of 64 KiB, each piece different. */
function* pieces(mb: number, seed: number): Generator<Uint8Array> {
  for (let sent = 0; sent < mb * MB; sent += PIECE) {
    const piece = new Uint8Array(Math.min(PIECE, mb * MB - sent));
    piece.fill((sent / PIECE + seed) % 251);
    piece[0] = seed;
    yield piece;
  }
}

const sha256Of = (mb: number, seed: number) => {
  const hash = createHash("sha256");
  for (const piece of pieces(mb, seed)) hash.update(piece);
  return hash.digest("hex");
};

/** A process's resident memory in bytes (VmRSS). */
const rss = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) * 1024;

/** What the database's rows take: SQLite's used pages (its file and WAL as one), or PostgreSQL's database size. */
async function storeBytes(): Promise<number> {
  const db = await getDb();
  if (db.dialect.name === "postgres")
    return Number((await db.one<{ n: number }>(sql`SELECT pg_database_size(current_database()) AS n`))?.n);
  const n = await db.one<{ n: number }>(
    sql`SELECT (p.page_count - f.freelist_count) * s.page_size AS n FROM pragma_page_count() p, pragma_freelist_count() f, pragma_page_size() s`,
  );
  return Number(n?.n);
}

/**
 * Writes what 500 MB of chunks left in the write-ahead log to the database files, as the database does in its own
 * time: the forks are timed on a store at rest, not during the flush of the bytes just stored.
 */
async function checkpoint() {
  const db = await getDb();
  await db.all(db.dialect.name === "postgres" ? sql`CHECKPOINT` : sql`PRAGMA wal_checkpoint(TRUNCATE)`);
}

const chargedBytes = async (userId: string) =>
  Number((await (await getDb()).one<{ n: number }>(sql`SELECT stored_bytes AS n FROM users WHERE id = ${userId}`))?.n);

function uploadRequest(base: string, token: string, mb: number, seed: number) {
  const source = pieces(mb, seed);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = source.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
  });
  return fetch(`${base}/api/uploads?filename=big-${seed}.bin`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/octet-stream", connection: "close" },
    body,
    duplex: "half",
  } as RequestInit);
}

async function uploadFigures(server: Server, token: string) {
  // Warmed up: the route and the store loaded and compiled, as on a running server.
  for (let i = 0; i < 3; i++) await (await uploadRequest(server.base, token, 4, 100 + i)).json();
  await new Promise((r) => setTimeout(r, 1000));
  const baseline = rss(server.pid);
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rss(server.pid));
  }, 10);
  const started = performance.now();
  const response = await uploadRequest(server.base, token, UPLOAD_MB, 7);
  const answer = (await response.json()) as { data: { sha256: string; size: number } };
  const ms = performance.now() - started;
  clearInterval(sampler);
  if (response.status !== 201) throw new Error(`the upload answered ${response.status}: ${JSON.stringify(answer)}`);
  return {
    uploadMb: UPLOAD_MB,
    uploadMs: Math.round(ms),
    serverRssBaselineMb: +(baseline / MB).toFixed(1),
    serverRssRiseMb: +((peak - baseline) / MB).toFixed(1),
    uploadShaMatches: answer.data.sha256 === sha256Of(UPLOAD_MB, 7) && answer.data.size === UPLOAD_MB * MB,
  };
}

/** A chat whose turns attach `mb` MiB, in files of up to FILE_MB; the ids of its turns. */
async function chatWithFiles(userId: string, mb: number, seed: number) {
  const chat = await createSession(userId, { name: "Files" });
  const turns: string[] = [];
  for (let i = 0; i * FILE_MB < mb; i++) {
    const file = await storeUpload(userId, pieces(Math.min(FILE_MB, mb - i * FILE_MB), seed + i), {
      filename: `part-${i}.bin`,
      mimeType: "application/octet-stream",
    });
    const turn = await startTurn({
      userId,
      sessionId: chat.id,
      agent: getAgent("demo"),
      text: `part ${i}`,
      attachments: [{ upload: file.id }],
    });
    await turn.done;
    turns.push(turn.invocationId);
  }
  return { id: chat.id, turns };
}

async function forkFigures(server: Server, userId: string, token: string) {
  const fork = async (chatId: string, before?: string) => {
    const [disk, charged] = [await storeBytes(), await chargedBytes(userId)];
    const started = performance.now();
    const response = await fetch(`${server.base}/api/sessions/${chatId}/fork`, {
      method: "POST",
      // A connection of its own: one kept alive across the minutes the chat took to build may be closing.
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", connection: "close" },
      body: JSON.stringify(before ? { rewind_before_invocation_id: before } : {}),
    });
    await response.json();
    const ms = performance.now() - started;
    if (response.status !== 201) throw new Error(`the fork answered ${response.status}`);
    return {
      ms: Math.round(ms),
      databaseKb: Math.round(((await storeBytes()) - disk) / 1024),
      chargedKb: Math.round(((await chargedBytes(userId)) - charged) / 1024),
    };
  };
  // The first forks of an instance load the route and prepare its statements; a running server has done that.
  const small = await chatWithFiles(userId, 2, 50);
  for (let i = 0; i < 3; i++) await fork(small.id);
  const chat = await chatWithFiles(userId, CHAT_MB, 20);
  await checkpoint();
  /** FORKS forks: the median and slowest time, and the most one added. */
  const forks = async (before?: string) => {
    const runs = [];
    for (let i = 0; i < FORKS; i++) runs.push(await fork(chat.id, before));
    const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
    return {
      msMedian: ms[Math.floor(FORKS / 2)],
      msMax: ms.at(-1),
      databaseKbMax: Math.max(...runs.map((r) => r.databaseKb)),
      chargedKbMax: Math.max(...runs.map((r) => r.chargedKb)),
    };
  };
  return {
    chatMb: CHAT_MB,
    files: chat.turns.length,
    forks: FORKS,
    duplicate: await forks(),
    beforeLastTurn: await forks(chat.turns.at(-1)),
  };
}

export async function attachmentsBench() {
  process.env.RETRACE_MAX_UPLOAD_BYTES = String(1024 ** 3);
  process.env.RETRACE_MAX_STORED_BYTES = String(1024 ** 4);
  process.env.DEMO_WORD_DELAY_MS = "0";
  build();
  const server = await startServer(PORT);
  try {
    const userId = await createUser();
    const token = await issueToken(userId);
    return { ...(await uploadFigures(server, token)), ...(await forkFigures(server, userId, token)) };
  } finally {
    await server.stop();
  }
}
