/** The embedded default: one better-sqlite3 connection in WAL mode, shared by every request of the process. */
import { AsyncLocalStorage } from "node:async_hooks";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import BetterSqlite, { type Statement } from "better-sqlite3";
import { type SQL, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { localBus } from "./bus";
import { type BatchPart, closable, type Database, type Driver, type Executor, executorOf, sqliteDialect } from "./database";
import { checkpointer, MAIN_CHECKPOINT_PAGES } from "./sqlite-checkpoints";

const MIGRATIONS = path.join(process.cwd(), "drizzle", "sqlite");
const compiler = new SQLiteSyncDialect();

/**
 * Statements run synchronously, but a transaction's callback awaits between them, so every use of
 * the connection takes this lock: another request can never slip a statement into an open
 * transaction. A transaction that tries to open another one fails at once instead of deadlocking.
 */
function serialiser() {
  let tail: Promise<unknown> = Promise.resolve();
  const holding = new AsyncLocalStorage<true>();
  return <T>(fn: () => Promise<T>): Promise<T> => {
    if (holding.getStore()) return Promise.reject(new Error("A store call was nested inside a transaction"));
    const result = tail.then(() => holding.run(true, fn));
    tail = result.catch(() => undefined);
    return result;
  };
}

/** better-sqlite3 binds no booleans: SQLite stores them as 0/1. */
const bindable = (params: unknown[]) => params.map((p) => (typeof p === "boolean" ? Number(p) : p));

export function openSqlite(file: string): Database {
  if (file !== ":memory:") mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new BetterSqlite(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 10000");
  sqlite.pragma("cache_size = -32768");
  migrate(drizzle(sqlite), { migrationsFolder: MIGRATIONS });
  const checkpoints = file === ":memory:" ? null : checkpointer(file);
  if (checkpoints) sqlite.pragma(`wal_autocheckpoint = ${MAIN_CHECKPOINT_PAGES}`);

  const statements = new Map<string, Statement>();
  const prepare = (query: SQL) => {
    const { sql: text, params } = compiler.sqlToQuery(query);
    let statement = statements.get(text);
    if (!statement) {
      statement = sqlite.prepare(text);
      if (statements.size > 1000) statements.clear();
      statements.set(text, statement);
    }
    return { statement, params: bindable(params) };
  };
  // Synchronous: a statement has run by the time `send` returns, so a batch runs in its order, a chain's writes included.
  const exec = (part: BatchPart): unknown => {
    const { statement, params } = prepare(part.query);
    if (part.read === "one") return statement.get(...params);
    if (part.read === "run") return statement.reader ? statement.all(...params).length : statement.run(...params).changes;
    const rows = statement.all(...params) as Record<string, unknown>[];
    if (part.read === "chain")
      for (const write of part.writes((column) => sql`${rows[0]?.[column] ?? null}`)) exec({ read: "run", query: write });
    return rows;
  };
  const send = async (part: BatchPart) => exec(part);
  const executor = executorOf(sqliteDialect, send);
  const serialise = serialiser();
  const transaction =
    (begin: string, committed?: () => void) =>
    <T>(fn: (tx: Executor) => Promise<T>) =>
      serialise(async () => {
        sqlite.exec(begin);
        const transaction = closable(send);
        try {
          const result = await fn(executorOf(sqliteDialect, transaction.send));
          transaction.close();
          sqlite.exec("COMMIT");
          committed?.();
          return result;
        } catch (error) {
          transaction.close();
          if (sqlite.inTransaction) sqlite.exec("ROLLBACK");
          throw error;
        }
      });

  const write = transaction("BEGIN IMMEDIATE", () => checkpoints?.afterWrite());
  const raw = new Map<string, Statement>();
  const driver: Driver = {
    kind: "sqlite",
    query: (text, params, method) =>
      serialise(async () => {
        let statement = raw.get(text);
        if (!statement) {
          statement = sqlite.prepare(text);
          if (statement.reader) statement.raw(true);
          raw.set(text, statement);
        }
        const values = bindable(params);
        if (!statement.reader) {
          const { changes } = statement.run(...values);
          checkpoints?.afterWrite();
          return { rows: [], changes };
        }
        return { rows: method === "get" ? statement.get(...values) : statement.all(...values) } as { rows: unknown[] };
      }),
  };
  return {
    dialect: sqliteDialect,
    all: (query) => serialise(() => executor.all(query)),
    one: (query) => serialise(() => executor.one(query)),
    run: (query) =>
      serialise(async () => {
        const changed = await executor.run(query);
        checkpoints?.afterWrite();
        return changed;
      }),
    write,
    // One transaction, whatever the statements.
    batch: (statements) => write((tx) => tx.batch(statements)),
    bus: localBus(),
    driver,
    read: transaction("BEGIN"),
    async migrations() {
      const shipped = JSON.parse(readFileSync(path.join(MIGRATIONS, "meta", "_journal.json"), "utf8")).entries.length;
      const applied = (sqlite.prepare("SELECT COUNT(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
      return { applied, shipped };
    },
    async close() {
      await checkpoints?.close();
      sqlite.close();
    },
  };
}
