import "server-only";
/** The process's store connection: SQLite by default, PostgreSQL when DATABASE_URL is set. */
import { config } from "@/lib/config";
import type { Database } from "./database";
import { openPostgres } from "./postgres";
import { prepareDatabase } from "./prepare";
import { openSqlite } from "./sqlite";

// On globalThis so route handlers, server actions and dev reloads share one connection (pool).
const perProcess = globalThis as typeof globalThis & { __retraceDb?: { key: string; db: Promise<Database> } };

async function open(): Promise<Database> {
  const database = config().database;
  const db = database.kind === "sqlite" ? openSqlite(database.path) : await openPostgres(database.url, database.poolSize);
  await prepareDatabase(db);
  return db;
}

export function getDb(): Promise<Database> {
  const database = config().database;
  const key = database.kind === "sqlite" ? `sqlite:${database.path}` : `postgres:${database.url}`;
  if (perProcess.__retraceDb?.key !== key) {
    void perProcess.__retraceDb?.db.then((previous) => previous.close()).catch(() => undefined);
    const db = open();
    // A failed open is retried by the next call rather than cached.
    db.catch(() => {
      if (perProcess.__retraceDb?.db === db) perProcess.__retraceDb = undefined;
    });
    perProcess.__retraceDb = { key, db };
  }
  return perProcess.__retraceDb.db;
}

/** Tests: use this database (e.g. a fresh in-memory one) from now on. */
export function setDb(db: Database): void {
  const database = config().database;
  void perProcess.__retraceDb?.db
    .then((previous) => {
      if (previous !== db) return previous.close();
    })
    .catch(() => undefined);
  perProcess.__retraceDb = {
    key: database.kind === "sqlite" ? `sqlite:${database.path}` : `postgres:${database.url}`,
    db: Promise.resolve(db),
  };
}

export async function closeDb(): Promise<void> {
  const current = perProcess.__retraceDb;
  perProcess.__retraceDb = undefined;
  await current?.db.then((db) => db.close()).catch(() => undefined);
}

export type { BusMessage } from "./bus";
export type { Database } from "./database";
