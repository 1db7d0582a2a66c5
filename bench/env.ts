/** What one bench run works on: its sizes, repetitions, database and ports, from flags and BENCH_* variables. */
import { randomUUID } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "..");
const DATA = path.join(ROOT, ".bench-data");
export const SIZES = (process.env.BENCH_SIZES ?? "100,1000,10000").split(",").map(Number);
export const RUNS = Number(process.env.BENCH_RUNS ?? 15);
export const PORT = Number(process.env.BENCH_PORT ?? 3230);
export const DIST = process.env.BENCH_DIST ?? ".next-bench";

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : (process.argv[i + 1] ?? "");
};
/** `--db postgres` runs everything on a throwaway PostgreSQL cluster instead of the SQLite file. */
export const DIALECT = arg("db") === "postgres" ? "postgres" : "sqlite";
export const LOAD = process.argv.includes("--load");
export const TURNS = process.argv.includes("--turns");
export const HARDENING = process.argv.includes("--hardening");
export const AUTH = process.argv.includes("--auth");
export const SEARCH = process.argv.includes("--search");
export const MAP = process.argv.includes("--map");
export const ATTACHMENTS = process.argv.includes("--attachments");
export const TOOLS = process.argv.includes("--tools");
export const OVERHEAD = process.argv.includes("--overhead");

export const label = (n: number) => (n >= 1000 ? `${n / 1000}k` : String(n));

/** A clean data directory, and the environment every part of the run (store, servers) shares. */
export function prepareEnvironment(databaseUrl?: string) {
  rmSync(DATA, { recursive: true, force: true });
  mkdirSync(DATA, { recursive: true });
  process.env.AUTH_SECRET ??= randomUUID();
  if (databaseUrl) process.env.DATABASE_URL = databaseUrl;
  else process.env.DATABASE_PATH = path.join(DATA, "retrace.db");
  // The load bench runs 100 users at once; nobody's quota should be the bottleneck of a measurement.
  process.env.RETRACE_MAX_CONCURRENT_TURNS ??= "10";
}
