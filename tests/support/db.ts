import { type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { getDb } from "@/lib/db/connection";
import type { Executor } from "@/lib/db/database";

/**
 * Every table, with a key that orders its rows the same on both dialects. Not `auth_rate_limits`: a refused
 * sign-in counts against its client's limit, which is bookkeeping, not data.
 */
const TABLES: Record<string, string> = {
  users: "id",
  sessions: "id",
  events: "session_id, seq",
  invocations: "session_id, invocation_id",
  state_checkpoints: "session_id, seq",
  app_state: "agent, key",
  user_state: "user_id, agent, key",
  artifacts: "scope, filename, version",
  search_keys: "user_id, key",
  search_texts: "session_id, seq, part",
  search_marks: "session_id, seq, initials",
  auth_users: "id",
  auth_sessions: "id",
  auth_accounts: "id",
  auth_verifications: "id",
  auth_passkeys: "id",
  api_tokens: "id",
  invites: "email",
  share_links: "id",
  version_labels: "session_id, invocation_id",
  blobs: "id",
  blob_chunks: "blob_id, seq",
  uploads: "id",
  todos: "user_id, id",
};

/** Every row of every table, in a stable order: "nothing was written" means before equals after. */
export async function tableRows() {
  const db = await getDb();
  const rows: Record<string, unknown[]> = {};
  for (const [table, key] of Object.entries(TABLES)) rows[table] = await db.all(sql.raw(`SELECT * FROM ${table} ORDER BY ${key}`));
  return rows;
}

/** Rows of a table, or of one session's rows in it. */
export async function count(table: keyof typeof TABLES, sessionId?: string): Promise<number> {
  const db = await getDb();
  const where = sessionId === undefined ? sql`` : sql` WHERE session_id = ${sessionId}`;
  return Number((await db.one<{ n: number }>(sql`SELECT COUNT(*) AS n FROM ${sql.raw(table)}${where}`))?.n);
}

/** Runs `fn`, counting the statements whose SQL text matches `pattern` (inside transactions too). */
export async function countStatements<T>(pattern: RegExp, fn: () => Promise<T>): Promise<{ result: T; count: number }> {
  const db = await getDb();
  const compiler = db.dialect.name === "sqlite" ? new SQLiteSyncDialect() : new PgDialect();
  let count = 0;
  const noted = (query: SQL) => {
    if (pattern.test(compiler.sqlToQuery(query).sql)) count += 1;
    return query;
  };
  const wrap = (tx: Executor): Executor => ({
    dialect: tx.dialect,
    batch: (statements) => {
      for (const part of statements.flatMap((s) => s?.parts ?? [])) noted(part.query);
      return tx.batch(statements);
    },
    all: (q) => tx.all(noted(q)),
    one: (q) => tx.one(noted(q)),
    run: (q) => tx.run(noted(q)),
  });
  const { write, read } = db;
  Object.assign(db, {
    write: (f: (tx: Executor) => Promise<unknown>) => write((tx) => f(wrap(tx))),
    read: (f: (tx: Executor) => Promise<unknown>) => read((tx) => f(wrap(tx))),
  });
  try {
    return { result: await fn(), count };
  } finally {
    Object.assign(db, { write, read });
  }
}

/** Runs `fn`, counting the transactions this process opens (a statement outside one counts as one). */
export async function countTransactions<T>(fn: () => Promise<T>): Promise<{ result: T; count: number }> {
  const db = await getDb();
  const methods = ["write", "read", "one", "all", "run", "batch"] as const;
  const originals = Object.fromEntries(methods.map((m) => [m, db[m]]));
  let count = 0;
  for (const m of methods) {
    Object.assign(db, {
      [m]: (...args: unknown[]) => {
        count += 1;
        return (originals[m] as (...a: unknown[]) => unknown)(...args);
      },
    });
  }
  try {
    return { result: await fn(), count };
  } finally {
    Object.assign(db, originals);
  }
}
