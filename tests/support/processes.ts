import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { getDb, openDb, setDb } from "@/lib/db/client";
import { createSession, createUser } from "@/lib/db/queries";

/** A temp-file database (real migrations) with one user and session, shared with child processes. */
export function fileDatabase() {
  const dir = mkdtempSync(path.join(tmpdir(), "retrace-"));
  const file = path.join(dir, "retrace.db");
  setDb(openDb(file));
  const userId = createUser();
  const sessionId = createSession(userId, { name: "shared", state: { started: true } }).id;
  return { file, userId, sessionId, raw: () => getDb().$client, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Starts tests/support/mutator.ts on `file`; `lines` collects what it printed. */
export function startMutator(file: string, userId: string, sessionId: string, operations: number | "forever") {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", "tests/support/mutator.ts", userId, sessionId, String(operations)],
    {
      env: { ...process.env, DATABASE_PATH: file },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const lines: string[] = [];
  let stderr = "";
  let buffer = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split("\n");
    buffer = parts.pop()!;
    lines.push(...parts);
  });
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, stderr })),
  );
  return { child, lines, exited };
}
