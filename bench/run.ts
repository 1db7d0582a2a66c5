/**
 * `npm run bench`: rewind, undo, fork, append and reads on sessions of 1k/5k/10k invocations,
 * through the store functions and the HTTP API of the production build, then a browser run on a
 * 1,000-turn chat. Prints medians with each size's ratio to the previous one; writes bench/results.json.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { issueToken } from "@/lib/auth";
import { createUser, deleteSession, forkSession, listEvents, listTasks, rewindSession } from "@/lib/db/queries";
import { appendInvocation, buildChat, buildSession } from "./fixtures";
import { median, middle, type Row, table } from "./measure";

const ROOT = path.resolve(import.meta.dirname, "..");
const DATA = path.join(ROOT, ".bench-data");
const SIZES = (process.env.BENCH_SIZES ?? "1000,5000,10000").split(",").map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const PORT = Number(process.env.BENCH_PORT ?? 3230);
const BASE = `http://127.0.0.1:${PORT}`;
const DIST = ".next-bench";

rmSync(DATA, { recursive: true, force: true });
mkdirSync(DATA, { recursive: true });
process.env.DATABASE_PATH = path.join(DATA, "retrace.db");
process.env.AUTH_SECRET ??= randomUUID();

const label = (n: number) => (n >= 1000 ? `${n / 1000}k` : String(n));
const results = new Map<string, Row>();
function record(operation: string, size: string, value: number, target?: string) {
  const row = results.get(operation) ?? { operation, target, values: {} };
  row.values[size] = value;
  results.set(operation, row);
}

/** Rewind before the middle invocation, then undo it, `RUNS` times (after a warm-up pair): two medians. */
async function rewindAndUndo(rewind: (id: string) => Promise<string>, middleId: string) {
  const rewinds: number[] = [];
  const undos: number[] = [];
  for (let i = 0; i <= RUNS; i++) {
    const start = performance.now();
    const marker = await rewind(middleId);
    const rewound = performance.now();
    await rewind(marker);
    if (i === 0) continue;
    rewinds.push(rewound - start);
    undos.push(performance.now() - rewound);
  }
  return { rewind: middle(rewinds), undo: middle(undos) };
}

async function storeBench(userId: string, size: string, sessionId: string, middleId: string) {
  const { rewind, undo } = await rewindAndUndo(async (id) => (await rewindSession(userId, sessionId, id)).event.invocation_id, middleId);
  record("store: rewind before middle", size, rewind, "≤ 25 ms (via HTTP)");
  record("store: undo that rewind", size, undo);
  const forks: string[] = [];
  record(
    "store: fork before middle",
    size,
    await median(RUNS, async () => forks.push((await forkSession(userId, sessionId, { invocationId: middleId })).id)),
    "≤ 150 ms",
  );
  for (const id of forks) await deleteSession(userId, id);
  record("store: append one invocation", size, await median(RUNS, (i) => appendInvocation(userId, sessionId, i, false)), "≤ 2 ms");
  record("store: append, streamed event by event", size, await median(RUNS, (i) => appendInvocation(userId, sessionId, i, true)));
  record("store: effective history", size, await median(RUNS, () => listEvents(userId, sessionId, "effective")));
  record("store: list tasks", size, await median(RUNS, () => listTasks(userId, sessionId)));
}

async function api(token: string, method: string, url: string, body?: unknown) {
  const response = await fetch(`${BASE}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as { data?: unknown; error?: string };
  if (!response.ok) throw new Error(`${method} ${url}: HTTP ${response.status} ${json.error}`);
  return json.data as never;
}

async function httpBench(token: string, size: string, sessionId: string, middleId: string) {
  const path = `/api/sessions/${sessionId}`;
  const rewind = async (id: string) =>
    ((await api(token, "POST", `${path}/rewind`, { rewind_before_invocation_id: id })) as { event: { invocation_id: string } }).event
      .invocation_id;
  const timed = await rewindAndUndo(rewind, middleId);
  record("http: rewind before middle", size, timed.rewind, "≤ 25 ms at 10k, ≤ 3× 1k");
  record("http: undo that rewind", size, timed.undo);
  const fork = async () => {
    const created = (await api(token, "POST", `${path}/fork`, { rewind_before_invocation_id: middleId })) as { id: string };
    return created.id;
  };
  const forks: string[] = [];
  record("http: fork before middle", size, await median(RUNS, async () => forks.push(await fork())), "≤ 150 ms");
  for (const id of forks) await api(token, "DELETE", `/api/sessions/${id}`);
  const invocation = (i: number) => {
    const id = `e-${randomUUID()}`;
    return ["user", "bench", "bench", "bench"].map((author, k) => ({
      invocation_id: id,
      author,
      content: { parts: [{ text: `${author} ${i}.${k}` }] },
      actions: { state_delta: { extra: i } },
    }));
  };
  record(
    "http: append one invocation (4 events)",
    size,
    await median(RUNS, (i) => api(token, "POST", `${path}/events`, invocation(i))),
    "(≤ 2 ms in the store)",
  );
  record("http: effective history", size, await median(RUNS, () => api(token, "GET", `${path}/events?view=effective`)));
  record("http: list tasks", size, await median(RUNS, () => api(token, "GET", `${path}/tasks`)));
}

function run(command: string, args: string[], env: Record<string, string>) {
  const result = spawnSync(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${result.status}`);
}

async function startServer(): Promise<ChildProcess> {
  const server = spawn("npx", ["next", "start", "-p", String(PORT), "-H", "127.0.0.1"], {
    cwd: ROOT,
    env: { ...process.env, NEXT_DIST_DIR: DIST },
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
  for (let i = 0; i < 120; i++) {
    if (
      await fetch(`${BASE}/api/agents`).then(
        () => true,
        () => false,
      )
    )
      return server;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("the bench server did not start");
}

async function main() {
  const userId = await createUser();
  const token = await issueToken(userId);
  const sessions: { size: string; sessionId: string; middleId: string }[] = [];
  for (const n of SIZES) {
    const started = performance.now();
    const { sessionId, invocationIds } = await buildSession(userId, n);
    const size = label(n);
    console.log(`built ${n} invocations in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    sessions.push({ size, sessionId, middleId: invocationIds[Math.floor(n / 2)] });
    await storeBench(userId, size, sessionId, invocationIds[Math.floor(n / 2)]);
  }
  const chatId = await buildChat(userId, 1000);
  console.log("built a 1,000-turn chat; building the app…");

  if (process.env.BENCH_SKIP_BUILD !== "1") run("npx", ["next", "build"], { NEXT_DIST_DIR: DIST });
  const server = await startServer();
  try {
    for (const s of sessions) await httpBench(token, s.size, s.sessionId, s.middleId);
    const out = path.join(DATA, "browser.json");
    run("npx", ["playwright", "test", "-c", "bench/playwright.config.ts"], {
      BENCH_URL: BASE,
      BENCH_TOKEN: token,
      BENCH_CHAT: chatId,
      BENCH_OUT: out,
    });
    const browser = JSON.parse(readFileSync(out, "utf8")) as Record<string, number>;
    record("browser: 1,000-turn chat list visible", "1k", browser.visible, "≤ 1500 ms");
    record("browser: 1,000-turn chat interactive", "1k", browser.interactive);
    record("browser: rewind click → updated list", "1k", browser.rewind, "≤ 300 ms");
  } finally {
    process.kill(-server.pid!, "SIGTERM");
  }

  const sizes = SIZES.map(label);
  const rows = [...results.values()];
  console.log(`\nMedians of ${RUNS} runs (ms); ×N = ratio to the previous size\n`);
  console.log(table(rows, sizes));
  writeFileSync(
    path.join(ROOT, "bench/results.json"),
    JSON.stringify({ date: new Date().toISOString(), runs: RUNS, sizes, rows }, null, 2),
  );
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
