/** The production build the HTTP, browser and load benches talk to: one or more `next start` instances. */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
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
  stop(): void;
}

/** Starts an instance on `port` with the bench's environment (database, secret) and waits for its health route. */
export async function startServer(port: number, env: Record<string, string> = {}): Promise<Server> {
  const child: ChildProcess = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: ROOT,
    env: { ...process.env, NEXT_DIST_DIR: DIST, ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 240; i++) {
    const up = await fetch(`${base}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { base, stop: () => child.kill("SIGTERM") };
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill("SIGKILL");
  throw new Error(`the bench server on ${port} did not start`);
}
