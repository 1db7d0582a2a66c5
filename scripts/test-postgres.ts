/**
 * A throwaway PostgreSQL cluster for tests and benches: `initdb` in a temp directory, a free port,
 * trust auth on 127.0.0.1, removed on stop. Run directly (`npx tsx scripts/test-postgres.ts --port N`)
 * it serves in the foreground until killed — how the end-to-end suite starts one beside the app.
 * Installs Debian's `postgresql` when its binaries are missing and we are root.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

const BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";
const isRoot = process.getuid?.() === 0;

function ensureInstalled() {
  if (existsSync(path.join(BIN, "initdb"))) return;
  if (!isRoot) {
    throw new Error(`PostgreSQL server binaries are not in ${BIN}: install Debian's postgresql package (or set PG_BIN)`);
  }
  console.log("Installing Debian's postgresql package for the PostgreSQL tests…");
  execFileSync("apt-get", ["update"], { stdio: "inherit" });
  execFileSync("apt-get", ["install", "-y", "postgresql"], {
    stdio: "inherit",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
}

/** PostgreSQL refuses to run as root: then every server command runs as the `postgres` user. */
function pg(command: string, args: string[]) {
  const binary = path.join(BIN, command);
  const result = isRoot ? spawnSync("runuser", ["-u", "postgres", "--", binary, ...args]) : spawnSync(binary, args);
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr?.toString() || result.stdout?.toString()}`);
}

/** Where a cluster on `port` says how it runs, so another process (the end-to-end suite) can restart it. */
const infoFile = (port: number) => path.join(tmpdir(), `retrace-pg-${port}.json`);

/** Restarts the cluster a `startPostgres` in another process runs on `port` (see `TestPostgres.restart`). */
export async function restartPostgresOn(port: number, downMs: number) {
  const { data, settings, dir } = JSON.parse(readFileSync(infoFile(port), "utf8")) as { data: string; settings: string[]; dir: string };
  pg("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
  await new Promise((resolve) => setTimeout(resolve, downMs));
  pg("pg_ctl", ["-D", data, "-o", settings.join(" "), "-l", path.join(dir, "server.log"), "-w", "start"]);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface TestPostgres {
  url: string;
  port: number;
  /** Stops the server (fast shutdown: connections are cut), keeps it down `downMs`, and starts it again. */
  restart(downMs: number): Promise<void>;
  /** The server's process id (its backends are its children), read from its postmaster.pid. */
  pid(): number;
  stop(): void;
}

/** `durable: false` (tests) turns fsync off; benches keep fsync and only relax commit waits, like SQLite's WAL NORMAL. */
export async function startPostgres(opts: { port?: number; durable?: boolean } = {}): Promise<TestPostgres> {
  ensureInstalled();
  const dir = mkdtempSync(path.join(tmpdir(), "retrace-pg-"));
  if (isRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString());
    chownSync(dir, uid, gid);
  }
  const data = path.join(dir, "data");
  pg("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync"]);
  const port = opts.port ?? (await freePort());
  const settings = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses=127.0.0.1",
    "-c max_connections=300",
    "-c synchronous_commit=off",
    ...(opts.durable ? [] : ["-c fsync=off", "-c full_page_writes=off"]),
  ];
  pg("pg_ctl", ["-D", data, "-o", settings.join(" "), "-l", path.join(dir, "server.log"), "-w", "start"]);
  writeFileSync(infoFile(port), JSON.stringify({ data, settings, dir }));
  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    restart: (downMs) => restartPostgresOn(port, downMs),
    pid: () => Number(readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]),
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        pg("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
        rmSync(infoFile(port), { force: true });
      }
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const portArg = process.argv.indexOf("--port");
  const server = await startPostgres({ port: portArg > 0 ? Number(process.argv[portArg + 1]) : undefined });
  console.log(`PostgreSQL ready at ${server.url}`);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      server.stop();
      process.exit(0);
    });
  }
  setInterval(() => {}, 1 << 30);
}
