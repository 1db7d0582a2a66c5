import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { databasePath } from "@/lib/config";
import * as schema from "./schema";

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

/** Opens a database with WAL and foreign keys on, and applies the drizzle-kit migrations. */
export function openDb(file = databasePath()): Db {
  if (file !== ":memory:") mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 10000");
  sqlite.function("uuid", { deterministic: false }, () => randomUUID());
  const db = drizzle(sqlite, { schema });
  migrate(db, { migrationsFolder: path.join(process.cwd(), "drizzle") });
  return db;
}

// On globalThis so route handlers, server actions and dev reloads share one connection.
const holder = globalThis as typeof globalThis & { __retraceDb?: { file: string; db: Db } };

export function getDb(): Db {
  const file = databasePath();
  if (holder.__retraceDb?.file !== file) {
    holder.__retraceDb?.db.$client.close();
    holder.__retraceDb = { file, db: openDb(file) };
  }
  return holder.__retraceDb.db;
}

/** Tests: replace the shared connection (e.g. with a fresh in-memory database). */
export function setDb(db: Db): void {
  holder.__retraceDb?.db.$client.close();
  holder.__retraceDb = { file: databasePath(), db };
}
