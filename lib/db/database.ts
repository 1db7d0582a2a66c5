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
 * Runs statements; inside a transaction when handed to a `write` or `read` callback. A `batch` sends its
 * statements, built beforehand, in the order given and without waiting for one before sending the next:
 * on PostgreSQL they go out together (pg's pipeline mode), one round trip for all of them; on SQLite they
 * run one after the other. Order never depends on when promises were created: a step that needs what one
 * statement returned before building the next awaits its batch.
 */
export interface Executor {
  readonly dialect: Dialect;
  /** Sends `statements` now (a null is skipped and answers null); resolves once all have settled, with each one's result. */
  batch<T extends readonly (Statement<unknown> | null)[] | []>(statements: T): Promise<Results<T>>;
  all<T>(query: SQL): Promise<T[]>;
  one<T>(query: SQL): Promise<T | undefined>;
  /** Runs a statement; resolves with the number of rows it changed. */
  run(query: SQL): Promise<number>;
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
  /** The connection underneath, for a library that builds its own SQL (better-auth, lib/accounts/better-auth.ts). */
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

/** One statement as a driver sends it: read as rows, one row or rows changed, or a chain (see `chained`). */
export type BatchPart =
  | { readonly read: "all" | "one" | "run"; readonly query: SQL }
  | { readonly read: "chain"; readonly query: SQL; readonly writes: (returned: (column: string) => SQL) => SQL[] };

/** Statements built before they are sent, and how their results are read, together, as one value. */
export interface Statement<T> {
  readonly parts: readonly BatchPart[];
  decode(results: unknown[]): T;
}

export const all = <T>(query: SQL): Statement<T[]> => ({ parts: [{ read: "all", query }], decode: ([rows]) => rows as T[] });
export const one = <T>(query: SQL): Statement<T | undefined> => ({
  parts: [{ read: "one", query }],
  decode: ([row]) => row as T | undefined,
});
export const run = (query: SQL): Statement<number> => ({ parts: [{ read: "run", query }], decode: ([changed]) => changed as number });

/**
 * `first`, a write returning at most one row, then the writes `writes` builds, which may use that row's
 * columns through `returned(column)`; reads as first's rows. On PostgreSQL all of it is one statement
 * (data-modifying WITH clauses: one round trip, not one per write), so the writes must neither read one
 * another's changes nor touch the same rows. On SQLite they run one after the other.
 */
export const chained = <T extends object>(first: SQL, writes: (returned: (column: keyof T & string) => SQL) => SQL[]): Statement<T[]> => ({
  parts: [{ read: "chain", query: first, writes: writes as (returned: (column: string) => SQL) => SQL[] }],
  decode: ([rows]) => rows as T[],
});

/** `statements` sent together and read as one value: a read of several statements (one per piece of a log, say). */
export function combined<S extends readonly Statement<unknown>[] | [], T>(statements: S, decode: (results: Results<S>) => T): Statement<T> {
  return {
    parts: statements.flatMap((s) => s.parts),
    decode: (results) => decode(decodeEach(statements, results) as Results<S>),
  };
}

/** Each of `statements` read from its own run of `results`, which holds their parts' results in order (a null answers null). */
function decodeEach(statements: readonly (Statement<unknown> | null)[], results: unknown[]): unknown[] {
  let at = 0;
  return statements.map((s) => {
    if (s === null) return null;
    const own = results.slice(at, at + s.parts.length);
    at += s.parts.length;
    return s.decode(own);
  });
}

/** `statement`, its result read through `read` (which may refuse it by throwing: a missing row's 404, say). */
export const mapped = <A, B>(statement: Statement<A>, read: (result: A) => B): Statement<B> => ({
  parts: statement.parts,
  decode: (results) => read(statement.decode(results)),
});

/** A statement's result; null for a skipped one (distributes over `Statement<…> | null`). */
type ResultOf<S> = S extends Statement<infer R> ? R : null;
type Results<T extends readonly (Statement<unknown> | null)[]> = { -readonly [K in keyof T]: ResultOf<T[K]> };

/** SQLSTATE in_failed_sql_transaction: a statement PostgreSQL refused because one before it had failed. */
const ABORTED = "25P02";

/**
 * `Promise.all` for work already sent in a transaction: it settles once every one has, so none is still
 * running when a failure ends the transaction; then it rejects with the failure that says what happened,
 * or resolves with all the results. On PostgreSQL the statements behind a failed one fail too, as
 * "transaction aborted", and may settle first: the first other failure in send order is the cause (a
 * deadlock the store retries, say). For the drivers and `ahead` only: everything else sends a batch.
 */
export async function settled<T extends readonly unknown[] | []>(values: T): Promise<{ -readonly [P in keyof T]: Awaited<T[P]> }> {
  const outcomes = await Promise.allSettled(values);
  const failures = outcomes.flatMap((s) => (s.status === "rejected" ? [s.reason as unknown] : []));
  if (failures.length > 0) throw failures.find((reason) => (reason as { code?: string }).code !== ABORTED) ?? failures[0];
  return outcomes.map((s) => (s as PromiseFulfilledResult<unknown>).value) as { -readonly [P in keyof T]: Awaited<T[P]> };
}

/**
 * An executor from a driver's `send`, which must hand its statement to the connection before it returns
 * (that is what keeps a batch's order). `all`, `one` and `run` send one statement.
 */
export function executorOf(dialect: Dialect, send: (part: BatchPart) => Promise<unknown>): Executor {
  return {
    dialect,
    async batch<T extends readonly (Statement<unknown> | null)[] | []>(statements: T) {
      const results = await settled(statements.flatMap((s) => (s === null ? [] : s.parts.map(send))));
      return decodeEach(statements, results) as Results<T>;
    },
    all: (query) => send({ read: "all", query }) as Promise<never>,
    one: (query) => send({ read: "one", query }) as Promise<never>,
    run: (query) => send({ read: "run", query }) as Promise<number>,
  };
}

/**
 * Sends `statements`, then runs `rest` at once, whose statements queue behind them (the same round trip on
 * PostgreSQL): a write that can go out before the row it depends on is read back, checked before commit.
 * Settles both before reporting either's failure, as a batch does.
 */
export async function ahead<T extends readonly (Statement<unknown> | null)[] | [], R>(
  tx: Executor,
  statements: T,
  rest: () => Promise<R>,
): Promise<[Results<T>, R]> {
  const sent = tx.batch(statements);
  // Started at once (its first statements queue behind the batch's); a synchronous throw becomes its failure.
  const later = (async () => rest())();
  return settled([sent, later]);
}

/**
 * `send` for one transaction: once `close` is called, a statement still to come (from work that lost the
 * race to a failure) is refused instead of running outside the transaction, or inside the next one on the
 * same connection.
 */
export function closable(send: (part: BatchPart) => Promise<unknown>): { send: (part: BatchPart) => Promise<unknown>; close(): void } {
  let open = true;
  return {
    async send(part) {
      if (!open) throw new Error("A statement was issued after its transaction ended");
      return send(part);
    },
    close: () => {
      open = false;
    },
  };
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
