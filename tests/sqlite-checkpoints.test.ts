/**
 * WAL checkpoints run on the checkpoint worker, not inside a request's COMMIT: the main connection's own
 * threshold is far above these writes, yet the database file takes them in shortly after.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterEach, expect, it } from "vitest";
import type { Database } from "@/lib/db/database";
import { openSqlite } from "@/lib/db/sqlite";

let dir = "";
let db: Database | undefined;
afterEach(async () => {
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

it("the worker copies committed writes into the database file within a second or so", async () => {
  dir = mkdtempSync(path.join(tmpdir(), "retrace-wal-"));
  const file = path.join(dir, "retrace.db");
  db = openSqlite(file);
  await db.write(async (tx) => {
    await tx.run(sql`INSERT INTO users (id, created_at) VALUES ('u1', 0)`);
  });
  const before = statSync(file).size;
  const text = "x".repeat(1_000_000);
  await db.write(async (tx) => {
    await tx.run(sql`INSERT INTO app_state (agent, key, value) VALUES ('demo', 'app:big', ${text})`);
  });
  // 1 MB sits in the WAL (250 pages, far below the main connection's 20,000) until the worker moves it.
  expect(statSync(`${file}-wal`).size).toBeGreaterThan(1_000_000);
  let size = statSync(file).size;
  for (let i = 0; i < 50 && size < before + 1_000_000; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    size = statSync(file).size;
  }
  expect(size).toBeGreaterThan(before + 1_000_000);
});
