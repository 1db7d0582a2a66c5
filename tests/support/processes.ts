import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setDb } from "@/lib/db/connection";
import { createSession, createUser } from "@/lib/db/queries";
import { openSqlite } from "@/lib/db/sqlite";

/**
 * A database that other processes can open too: a temp SQLite file, or (postgres project) this test
 * file's PostgreSQL database. `env` is what a child process needs to reach it.
 */
export async function sharedDatabase() {
  let env: Record<string, string>;
  let cleanup = () => {};
  if (process.env.TEST_DATABASE_URL) {
    env = { DATABASE_URL: process.env.TEST_DATABASE_URL, AUTH_SECRET: process.env.AUTH_SECRET ?? "" };
  } else {
    const dir = mkdtempSync(path.join(tmpdir(), "retrace-"));
    const file = path.join(dir, "retrace.db");
    setDb(openSqlite(file));
    env = { DATABASE_PATH: file };
    cleanup = () => rmSync(dir, { recursive: true, force: true });
  }
  const userId = await createUser();
  const sessionId = (await createSession(userId, { name: "shared", state: { started: true } })).id;
  return { env, userId, sessionId, cleanup };
}

/** Runs `script` (a tests/support file) with the shared database; `lines` collects what it printed. */
export function startProcess(script: string, env: Record<string, string>, args: string[]) {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", "--import", "./scripts/server-context.mjs", `tests/support/${script}`, ...args],
    {
      env: { ...process.env, DATABASE_PATH: "", DATABASE_URL: "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const lines: string[] = [];
  let stderr = "";
  let buffer = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split("\n");
    buffer = parts.pop() ?? "";
    lines.push(...parts);
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, stderr })),
  );
  const waitFor = async (prefix: string) => {
    while (!lines.some((l) => l.startsWith(prefix))) {
      if (child.exitCode !== null) throw new Error(`${script} exited early: ${stderr}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return lines.find((l) => l.startsWith(prefix)) ?? "";
  };
  return { child, lines, exited, waitFor };
}

/** tests/support/mutator.ts on the shared database. */
export function startMutator(env: Record<string, string>, userId: string, sessionId: string, operations: number | "forever") {
  return startProcess("mutator.ts", env, [userId, sessionId, String(operations)]);
}
