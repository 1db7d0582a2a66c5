/** The production build the HTTP, browser and load benches talk to: one or more `next start` instances. */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { DIST, ROOT } from "./env";

export function run(command: string, args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${result.status}`);
}

export function build() {
  if (process.env.BENCH_SKIP_BUILD !== "1") run("npx", ["next", "build"], { NEXT_DIST_DIR: DIST });
}

export interface Server {
  base: string;
  /** The instance's process, for what it costs (bench/proc.ts) and the memory it holds (/proc/<pid>/status). */
  pid: number;
  /** Resolves once the instance has exited: the next run's instance on this port must not meet it there. */
  stop(): Promise<void>;
}

/** SIGTERM (the instance interrupts its turns and releases them), SIGKILL if it is not gone within 15 s. */
function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const kill = setTimeout(() => child.kill("SIGKILL"), 15_000);
  return exited.finally(() => clearTimeout(kill));
}

/** Refuses a port something still listens on: its health route would answer for the instance we start. */
async function requireFree(port: number) {
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once("error", () => reject(new Error(`port ${port} is in use: stop what listens there (BENCH_PORT picks another)`)));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve()));
  });
}

/** Starts an instance on `port` with the bench's environment (database, secret) and waits for its health route. */
export async function startServer(port: number, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<Server> {
  await requireFree(port);
  const child: ChildProcess = spawn(
    process.execPath,
    [...nodeArgs, "node_modules/next/dist/bin/next", "start", "-p", String(port), "-H", "127.0.0.1"],
    {
      cwd: ROOT,
      env: { ...process.env, NEXT_DIST_DIR: DIST, ...env },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 240; i++) {
    const up = await fetch(`${base}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { base, pid: child.pid as number, stop: () => stopped(child) };
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill("SIGKILL");
  throw new Error(`the bench server on ${port} did not start`);
}
