/**
 * The one interface the store runs SQL through, on either dialect. Statements are drizzle `sql`
 * templates written in the SQL both SQLite and PostgreSQL accept; what truly differs lives in
 * `Dialect` below (and the two implementations in sqlite.ts and postgres.ts).
 */
import { type SQL, sql } from "drizzle-orm";
import type pg from "pg";
import type { TurnBus } from "./bus";

type DialectName = "sqlite" | "postgres";

/**
 * Runs statements; inside a transaction when handed to a `write` or `read` callback. Statements issued
 * without waiting for the one before (`together`) run in the order issued, each once the one before
 * has finished; on PostgreSQL they go out together (pg's pipeline mode), one round trip for all of them.
 */
export interface Executor {
  readonly dialect: Dialect;
  all<T>(query: SQL): Promise<T[]>;
  one<T>(query: SQL): Promise<T | undefined>;
  /** Runs a statement; resolves with the number of rows it changed. */
  run(query: SQL): Promise<number>;
  /**
   * Runs `first`, a write returning at most one row, then the writes `then` builds, which may use that
   * row's columns through `returned(column)`; resolves with first's rows. On PostgreSQL all of it is one
   * statement (data-modifying WITH clauses: one round trip, not one per write), so the writes must neither
   * read one another's changes nor touch the same rows. On SQLite they run one after the other.
   */
  chain<T extends object>(first: SQL, then: (returned: (column: keyof T & string) => SQL) => SQL[]): Promise<T[]>;
}

export interface Database extends Executor {
  /**
   * One write transaction: everything `fn` does commits together or not at all. SQLite takes the
   * write lock up front (`BEGIN IMMEDIATE`); on PostgreSQL the store locks the session row it writes.
   */
  write<T>(fn: (tx: Executor) => Promise<T>): Promise<T>;
  /** Several reads from one consistent snapshot. */
  read<T>(fn: (tx: Executor) => Promise<T>): Promise<T>;
  /** Messages about running turns between app instances (in-process on SQLite). */
  readonly bus: TurnBus;
  /** The connection underneath, for a library that builds its own SQL (better-auth, lib/accounts/auth.ts). */
  readonly driver: Driver;
  /** Applied migrations against the ones shipped, for the health route. */
  migrations(): Promise<{ applied: number; shipped: number }>;
  close(): Promise<void>;
}

/**
 * SQLite: drizzle's sqlite-proxy callback, each statement taking the store's lock like any other, so none
 * lands inside a store transaction; PostgreSQL: the pool.
 */
export type Driver =
  | {
      kind: "sqlite";
      /** `changes`: the rows a write changed, which better-auth counts. */
      query(text: string, params: unknown[], method: "run" | "all" | "values" | "get"): Promise<{ rows: unknown[]; changes?: number }>;
    }
  | { kind: "postgres"; pool: pg.Pool };

/**
 * `executor` for one transaction: once `close` is called, a statement still to come (from a branch of a
 * `Promise.all` that lost the race to a failure) is refused instead of running outside the transaction,
 * or inside the next one on the same connection.
 */
export function closable(executor: Executor): { executor: Executor; close(): void } {
  let open = true;
  const check = () => {
    if (!open) throw new Error("A statement was issued after its transaction ended");
  };
  return {
    executor: {
      dialect: executor.dialect,
      async all<T>(query: SQL) {
        check();
        return executor.all<T>(query);
      },
      async one<T>(query: SQL) {
        check();
        return executor.one<T>(query);
      },
      async run(query) {
        check();
        return executor.run(query);
      },
      async chain(first, then) {
        check();
        return executor.chain(first, then);
      },
    },
    close: () => {
      open = false;
    },
  };
}

/** SQLSTATE in_failed_sql_transaction: a statement PostgreSQL refused because one before it had failed. */
const ABORTED = "25P02";

/**
 * `Promise.all` for statements issued together in a transaction: it settles once every one of them
 * has, so none is still running when a failure ends the transaction; then it rejects with the failure
 * that says what happened, or resolves with all the results. On PostgreSQL the statements behind a
 * failed one fail too, as "transaction aborted", and may settle first: the first other failure in issue
 * order is the cause (a deadlock the store retries, say).
 */
export async function together<T extends readonly unknown[] | []>(values: T): Promise<{ -readonly [P in keyof T]: Awaited<T[P]> }> {
  const settled = await Promise.allSettled(values);
  const failures = settled.flatMap((s) => (s.status === "rejected" ? [s.reason as unknown] : []));
  if (failures.length > 0) throw failures.find((reason) => (reason as { code?: string }).code !== ABORTED) ?? failures[0];
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as { -readonly [P in keyof T]: Awaited<T[P]> };
}

/** A statement built before it is sent, and how its result is read: its rows, its one row, or the rows it changed. */
export interface Statement<T> {
  readonly query: SQL;
  readonly read: "all" | "one" | "run";
  /** Carries the result's type only. */
  readonly result?: T;
}

export const all = <T>(query: SQL): Statement<T[]> => ({ query, read: "all" });
export const one = <T>(query: SQL): Statement<T | undefined> => ({ query, read: "one" });
export const run = (query: SQL): Statement<number> => ({ query, read: "run" });

/** A statement's result; null for a skipped one (distributes over `Statement<…> | null`). */
type ResultOf<S> = S extends Statement<infer R> ? R : null;
type Results<T extends readonly (Statement<unknown> | null)[]> = { -readonly [K in keyof T]: ResultOf<T[K]> };

/**
 * Sends `statements`, built beforehand, in the order given (a null is skipped and answers null), without
 * waiting for one before sending the next: on PostgreSQL they go out together (one round trip), on SQLite
 * they run one after the other. Settles as `together` does, and resolves with each statement's result.
 */
export function batch<T extends readonly (Statement<unknown> | null)[] | []>(tx: Executor, statements: T): Promise<Results<T>> {
  return together(statements.map((s) => (s === null ? null : tx[s.read](s.query)))) as Promise<Results<T>>;
}

/** The SQL fragments that differ between the dialects. */
export interface Dialect {
  readonly name: DialectName;
  /** Appended to a SELECT that must lock the row it reads until the transaction ends. */
  readonly forUpdate: SQL;
  /** Bytes of a text column. */
  byteLength(column: SQL): SQL;
  /**
   * `values` as a one-column table (`value`), in one parameter whatever their number: a statement that
   * PostgreSQL prepares once, where a VALUES list is a new statement, parsed and planned, per length.
   */
  textList(values: string[]): SQL;
}

export const sqliteDialect: Dialect = {
  name: "sqlite",
  forUpdate: sql``,
  byteLength: (column) => sql`length(CAST(${column} AS BLOB))`,
  textList: (values) => sql`SELECT value FROM json_each(${JSON.stringify(values)})`,
};

export const postgresDialect: Dialect = {
  name: "postgres",
  forUpdate: sql`FOR UPDATE`,
  byteLength: (column) => sql`octet_length(${column})`,
  textList: (values) => sql`SELECT unnest(CAST(${sql.param(values)} AS text[])) AS value`,
};

/**
 * `items` in slices a statement can take: a VALUES list of 500 rows stays far below both dialects'
 * parameter limits (SQLite 32,766; PostgreSQL 65,535) and SQLite's expression depth.
 */
export function inBatches<T>(items: T[], size = 500): T[][] {
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  return batches;
}

/** Rows of typed parameters as a VALUES list (each value CAST, so both dialects know a column's type). */
export function typedValues(rows: readonly (readonly unknown[])[], types: readonly ("TEXT" | "INTEGER")[]): SQL {
  return sql.join(
    rows.map(
      (row) =>
        sql`(${sql.join(
          row.map((value, i) => sql`CAST(${value} AS ${sql.raw(types[i])})`),
          sql`, `,
        )})`,
    ),
    sql`, `,
  );
}
