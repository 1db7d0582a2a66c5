/**
 * `npm run bench -- --overhead`: what streaming a model's reply through Retrace costs beside a bare relay
 * (bench/relay.mjs: the same routes, no auth, no store), all in one run against one zero-latency fake model
 * (e2e/support/fake-openai.mjs). For each target — the relay, SQLite on one instance, PostgreSQL on two —
 * 200 users × 3 turns of the `assistant` over A2A `message/stream`, 40 tokens 50 ms apart, 0–1 s before
 * each turn (bench/overhead-load.ts, a process of its own); the servers' CPU (and PostgreSQL's) read from
 * /proc. Then CPU at 10 and 200 tokens (per token and per turn, fitted), what the turn's store transactions
 * cost alone (bench/overhead-tx.ts), and memory with 1,000 streams open. BENCH_OVERHEAD_TARGETS
 * (`relay,sqlite,postgres`) and BENCH_OVERHEAD_PHASES (`main,scaling,memory,tx`) pick parts;
 * BENCH_CPU_PROF=1 writes each app instance's `--cpu-prof` profile to .bench-data/prof-<target>/.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { startPostgres, type TestPostgres } from "../scripts/test-postgres";
import { PORT, ROOT } from "./env";
import { cpuMs, loadAverage, rssBytes } from "./proc";
import { build, type Server, startServer } from "./servers";

const TARGETS = (process.env.BENCH_OVERHEAD_TARGETS ?? "relay,sqlite,postgres").split(",");
const PHASES = new Set((process.env.BENCH_OVERHEAD_PHASES ?? "main,scaling,memory,tx").split(","));
const USERS = Number(process.env.BENCH_OVERHEAD_USERS ?? 200);
const OPEN_STREAMS = Number(process.env.BENCH_OVERHEAD_STREAMS ?? 1000);
const MODEL_PORT = PORT + 3;
const RELAY_PORT = PORT + 2;
const DATA = path.join(ROOT, ".bench-data");

interface LoadJob {
  mode: "run" | "hold";
  users: number;
  turns: number;
  tokens: number;
  intervalMs: number;
  thinkMs: number;
}
type LoadFigures = {
  turns: number;
  errors: number;
  errorSamples: string[];
  seconds: number;
  turnsPerSecond: number;
  firstTokenP50: number;
  firstTokenP99: number;
  gapDistortionP50: number;
  gapDistortionP99: number;
};

const MAIN: LoadJob = { mode: "run", users: USERS, turns: 3, tokens: 40, intervalMs: 50, thinkMs: 1000 };
const WARM: LoadJob = { mode: "run", users: 20, turns: 6, tokens: 40, intervalMs: 5, thinkMs: 100 };
const SCALING = [10, 200].map((tokens): LoadJob => ({ mode: "run", users: 50, turns: 2, tokens, intervalMs: 20, thinkMs: 500 }));

function node(script: string, args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", "--import", "./scripts/server-context.mjs", script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
}

/** The last JSON line a child printed, once it exits (0). */
function lastLine(child: ChildProcess): Promise<unknown> {
  let out = "";
  child.stdout?.on("data", (chunk) => (out += chunk));
  return new Promise((resolve, reject) =>
    child.once("exit", (code) => {
      const line = out.trim().split("\n").at(-1) ?? "";
      if (code === 0) resolve(JSON.parse(line));
      else reject(new Error(`${child.spawnargs.join(" ")} exited with ${code}: ${out}`));
    }),
  );
}

/** Runs a load job; `ready` is called once its users have signed up, before their first turn. */
function load(bases: string[], job: LoadJob, ready?: () => void): Promise<LoadFigures> {
  const child = node("bench/overhead-load.ts", [JSON.stringify({ ...job, bases })]);
  if (!ready) child.stdin?.end();
  else
    child.stdout?.on("data", function onData(chunk) {
      if (!String(chunk).includes('{"ready":true}')) return;
      child.stdout?.off("data", onData);
      ready();
      child.stdin?.end("go\n");
    });
  return lastLine(child) as Promise<LoadFigures>;
}

/** Waits until `url` answers, or throws after `seconds`. */
async function answering(url: string, seconds = 30) {
  for (let i = 0; i < seconds * 4; i++) {
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer`);
}

/** Stops a helper process (SIGTERM) and waits for it to exit. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  return exited;
}

interface Target {
  name: string;
  bases: string[];
  /** The processes whose CPU is the app's, and the database server's (PostgreSQL), if any. */
  app: number[];
  database: number[];
  stop(): Promise<void>;
}

const modelEnv = { OPENAI_BASE_URL: `http://127.0.0.1:${MODEL_PORT}/v1`, OPENAI_API_KEY: "bench", OPENAI_MODEL: "fake-model" };

async function startTarget(name: string, postgres: TestPostgres | null): Promise<Target> {
  if (name === "relay") {
    const relay = spawn(process.execPath, ["bench/relay.mjs"], {
      cwd: ROOT,
      env: { ...process.env, ...modelEnv, RELAY_PORT: String(RELAY_PORT) },
      stdio: ["ignore", "ignore", "inherit"],
    });
    const base = `http://127.0.0.1:${RELAY_PORT}`;
    await answering(`${base}/api/health`);
    return { name, bases: [base], app: [relay.pid as number], database: [], stop: () => stopChild(relay) };
  }
  const profile = process.env.BENCH_CPU_PROF === "1" ? path.join(DATA, `prof-${name}`) : null;
  if (profile) mkdirSync(profile, { recursive: true });
  const env: Record<string, string> = {
    ...modelEnv,
    DATABASE_POOL_SIZE: "20",
    RETRACE_MAX_CONCURRENT_TURNS: "10",
    ...(postgres ? { DATABASE_URL: postgres.url } : { DATABASE_PATH: path.join(DATA, `overhead-${Date.now()}.db`) }),
  };
  const servers: Server[] = [];
  // Node refuses --cpu-prof in NODE_OPTIONS: it goes on the instance's command line.
  const nodeArgs = profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : [];
  for (let i = 0; i < (postgres ? 2 : 1); i++) servers.push(await startServer(PORT + i, env, nodeArgs));
  return {
    name,
    bases: servers.map((s) => s.base),
    app: servers.map((s) => s.pid),
    database: postgres ? [postgres.pid()] : [],
    stop: async () => {
      await Promise.all(servers.map((s) => s.stop()));
    },
  };
}

/** A load job's figures with the CPU the target used meanwhile, per turn (app and database). */
async function measured(target: Target, job: LoadJob) {
  const loadBefore = loadAverage();
  let [app, database] = [0, 0];
  const figures = await load(target.bases, job, () => {
    [app, database] = [cpuMs(target.app), cpuMs(target.database)];
  });
  const turns = figures.turns || 1;
  return {
    ...figures,
    cpuPerTurnMs: (cpuMs(target.app) - app) / turns,
    databaseCpuPerTurnMs: (cpuMs(target.database) - database) / turns,
    loadAverage: [loadBefore, loadAverage()],
  };
}

/** RSS the app adds per open stream, with OPEN_STREAMS streams open (a token every 2 s). */
async function memory(target: Target) {
  await new Promise((r) => setTimeout(r, 2_000));
  const idle = rssBytes(target.app);
  const job: LoadJob = { mode: "hold", users: OPEN_STREAMS, turns: 1, tokens: 1_000_000, intervalMs: 2_000, thinkMs: 20_000 };
  const child = node("bench/overhead-load.ts", [JSON.stringify({ ...job, bases: target.bases })]);
  const done = lastLine(child);
  const opened = await new Promise<{ open: number; failed: number }>((resolve) => {
    let out = "";
    child.stdout?.on("data", function onData(chunk) {
      out += chunk;
      if (!out.includes("\n")) return;
      child.stdout?.off("data", onData);
      resolve(JSON.parse(out.split("\n")[0]));
    });
  });
  await new Promise((r) => setTimeout(r, 3_000));
  const open = rssBytes(target.app);
  child.stdin?.end();
  await done;
  return { ...opened, idleMb: idle / 2 ** 20, openMb: open / 2 ** 20, perStreamMb: (open - idle) / 2 ** 20 / Math.max(1, opened.open) };
}

type Measured = Awaited<ReturnType<typeof measured>>;
interface TargetFigures {
  main?: Measured;
  scaling?: { runs: (Measured & { tokens: number })[]; perTokenMs: number; perTurnMs: number };
  memory?: Awaited<ReturnType<typeof memory>>;
  transactions?: { appMs: number; databaseMs: number };
}

/** The store's part of a turn, alone (bench/overhead-tx.ts). */
function transactions(postgres: TestPostgres | null) {
  const env: Record<string, string> = postgres
    ? { DATABASE_URL: postgres.url }
    : { DATABASE_PATH: path.join(DATA, `overhead-tx-${Date.now()}.db`) };
  const child = node("bench/overhead-tx.ts", [String(postgres ? postgres.pid() : 0)], env);
  child.stdin?.end();
  return lastLine(child) as Promise<{ appMs: number; databaseMs: number }>;
}

/** Per token and per turn, from the CPU per turn at two reply lengths. */
function linearFit(runs: { tokens: number; cpuPerTurnMs: number; databaseCpuPerTurnMs: number }[]) {
  const [short, long] = runs;
  const cpu = (r: (typeof runs)[number]) => r.cpuPerTurnMs + r.databaseCpuPerTurnMs;
  const perToken = (cpu(long) - cpu(short)) / (long.tokens - short.tokens);
  return { perTokenMs: perToken, perTurnMs: cpu(short) - perToken * short.tokens };
}

export async function overheadBench() {
  mkdirSync(DATA, { recursive: true });
  process.env.AUTH_SECRET ??= randomUUID();
  if (TARGETS.some((t) => t !== "relay")) build();
  const model = spawn(process.execPath, ["e2e/support/fake-openai.mjs"], {
    cwd: ROOT,
    env: { ...process.env, FAKE_OPENAI_PORT: String(MODEL_PORT), FAKE_OPENAI_RECORD: "0" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const results: Record<string, TargetFigures> = {};
  try {
    await answering(`http://127.0.0.1:${MODEL_PORT}/health`);
    for (const name of TARGETS) {
      const postgres = name === "postgres" ? await startPostgres({ durable: true }) : null;
      try {
        const target = await startTarget(name, postgres);
        const figures: TargetFigures = {};
        try {
          await load(target.bases, WARM);
          if (PHASES.has("main")) figures.main = await measured(target, MAIN);
          if (PHASES.has("scaling")) {
            const runs = [];
            for (const job of SCALING) runs.push({ tokens: job.tokens, ...(await measured(target, job)) });
            figures.scaling = { runs, ...linearFit(runs) };
          }
          if (PHASES.has("memory")) figures.memory = await memory(target);
        } finally {
          await target.stop();
        }
        if (PHASES.has("tx") && name !== "relay") figures.transactions = await transactions(postgres);
        results[name] = figures;
        console.log(`\n${name}:`, JSON.stringify(figures, null, 2));
      } finally {
        postgres?.stop();
      }
    }
  } finally {
    await stopChild(model);
  }
  return results;
}

const f = (v: number | undefined) =>
  v === undefined || Number.isNaN(v) ? "–" : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);

/** The run as a table: a column per target, the relay first. */
export function overheadTable(results: Record<string, TargetFigures>): string {
  const rows: [string, (t: TargetFigures) => string][] = [
    [
      "server CPU per 40-token turn, ms",
      (t) => `${f(t.main?.cpuPerTurnMs)}${t.main?.databaseCpuPerTurnMs ? ` + ${f(t.main.databaseCpuPerTurnMs)} db` : ""}`,
    ],
    ["  per token (10 vs 200 tokens), ms", (t) => f(t.scaling?.perTokenMs)],
    ["  per turn, ms", (t) => f(t.scaling?.perTurnMs)],
    [
      "  the turn's transactions alone, ms",
      (t) => (t.transactions ? `${f(t.transactions.appMs)} + ${f(t.transactions.databaseMs)} db` : "–"),
    ],
    ["added before the first token p50 / p99, ms", (t) => `${f(t.main?.firstTokenP50)} / ${f(t.main?.firstTokenP99)}`],
    ["turns per second reached", (t) => f(t.main?.turnsPerSecond)],
    ["token gap distortion p50 / p99, ms", (t) => `${f(t.main?.gapDistortionP50)} / ${f(t.main?.gapDistortionP99)}`],
    ["errors", (t) => String(t.main?.errors ?? "–")],
    ["memory per open stream (of 1,000), MB", (t) => f(t.memory?.perStreamMb)],
    ["load average (timed run: start → end)", (t) => (t.main ? t.main.loadAverage.map((l: number) => l.toFixed(1)).join(" → ") : "–")],
  ];
  const names = Object.keys(results);
  const header = ["", ...names];
  const lines = [header, ...rows.map(([label, cell]) => [label, ...names.map((n) => cell(results[n]))])];
  const widths = header.map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  return lines.map((l) => l.map((c, i) => c.padEnd(widths[i])).join("   ")).join("\n");
}
