/** PostgreSQL through a bounded `pg` pool: what lets any number of app instances share one store (docs/semantics.md, "Turns"). */
import { readFileSync } from "node:fs";
import path from "node:path";
import { type SQL, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import { PgDialect } from "drizzle-orm/pg-core";
import pg from "pg";
import { type BatchPart, closable, type Database, type Executor, executorOf, postgresDialect, settled } from "./database";
import { postgresBus } from "./postgres-bus";

const MIGRATIONS = path.join(process.cwd(), "drizzle", "postgres");
/** Any fixed number: instances starting together take turns applying migrations. */
const MIGRATION_LOCK = 4_247_761;
const compiler = new PgDialect();

// Counts, sums and millisecond timestamps are int8/numeric; every value we store fits a JS number.
const types = {
  getTypeParser(id: number, format?: "text" | "binary") {
    if (id === pg.types.builtins.INT8 || id === pg.types.builtins.NUMERIC) return (value: string) => Number(value);
    return pg.types.getTypeParser(id, format);
  },
};

type Queryable = Pick<pg.Pool | pg.PoolClient, "query">;

/**
 * Statements are named (prepared): PostgreSQL parses each once per connection and, after five runs, keeps
 * a generic plan when it costs no more than planning anew. Planning was most of a short statement's time
 * (at 10k turns, in the store: an append 3.5 → 2.7 ms, a rewind and its undo 23 → 18 ms). Only statements
 * of a few parameters (an append's last statement has about 50 for four events), and at most MAX_NAMES
 * texts: a big batch's VALUES list would otherwise prepare a new statement per size on every connection.
 */
const MAX_NAMED_PARAMS = 64;
const MAX_NAMES = 2_000;
const names = new Map<string, string>();
/** Bumped when the schema changed under prepared statements: every statement is prepared again under a new name. */
let generation = 0;
export const preparedGeneration = () => generation;

function nameOf(text: string, params: number): string | undefined {
  if (params > MAX_NAMED_PARAMS) return undefined;
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMES) {
    name = `retrace_${generation}_${names.size}`;
    names.set(text, name);
  }
  return name;
}

/** How `client` sends one statement; a chain is one statement of data-modifying WITH clauses. */
function senderOn(client: Queryable, inTransaction: boolean) {
  const query = async (statement: SQL) => {
    const { sql: text, params } = compiler.sqlToQuery(statement);
    const run = () => client.query({ text, values: params, types, name: nameOf(text, params.length) });
    // A statement on its own can run again at once under its new name; in a transaction, the transaction does.
    return inTransaction ? run() : run().catch((error) => (preparesAgain(error) ? run() : Promise.reject(error)));
  };
  return async (part: BatchPart): Promise<unknown> => {
    if (part.read !== "chain") {
      const result = await query(part.query);
      return part.read === "run" ? (result.rowCount ?? 0) : part.read === "one" ? result.rows[0] : result.rows;
    }
    const writes = part.writes((column) => sql`(SELECT ${sql.identifier(column)} FROM w0)`);
    const clauses = [part.query, ...writes].map((statement, i) => sql`${sql.raw(`w${i}`)} AS (${statement})`);
    return (await query(sql`WITH ${sql.join(clauses, sql`, `)} SELECT * FROM w0`)).rows;
  };
}

async function migrateOnce(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS });
  } finally {
    await client.end();
  }
}

/** SQLSTATE deadlock_detected. */
const DEADLOCK = "40P01";

/**
 * A prepared `SELECT *` whose table gained a column (another instance migrated the database during a
 * rolling deploy) fails with this. True for such an error, and then every statement is prepared anew under
 * a new name, so the transaction can run again.
 */
function preparesAgain(error: unknown) {
  // By the server's function that raised it: the message is translated under another lc_messages.
  const { code, routine } = error as { code?: string; routine?: string };
  const stale = code === "0A000" && routine === "RevalidateCachedQuery";
  if (stale) {
    generation += 1;
    names.clear();
  }
  return stale;
}

export async function openPostgres(url: string, poolSize: number): Promise<Database> {
  await migrateOnce(url);
  // Opened in full at start-up and kept (pg closes idle connections after 10 s by default): otherwise the
  // first burst after a start or a quiet spell also waits for new server processes to start.
  const pool = new pg.Pool({ connectionString: url, max: poolSize, idleTimeoutMillis: 0, pipeline: true });
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on("error", (error) => console.error("PostgreSQL pool:", error.message));
  const clients = await Promise.all(Array.from({ length: poolSize }, () => pool.connect()));
  for (const client of clients) client.release();
  const attempt = async <T>(begin: string, fn: (tx: Executor) => Promise<T>) => {
    const client = await pool.connect();
    // A connection cut between statements (the server restarting) says so as an 'error' event, an uncaught
    // exception without a listener; the transaction's next statement fails, and the connection is dropped.
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken = error;
    };
    client.on("error", onError);
    const transaction = closable(senderOn(client, true));
    try {
      // BEGIN goes out with the transaction's first statements, not a round trip ahead of them: it cannot
      // fail on a healthy connection, and a broken one fails every statement behind it too.
      const [, result] = await settled([client.query(begin), fn(executorOf(postgresDialect, transaction.send))]);
      transaction.close();
      await client.query("COMMIT");
      return result;
    } catch (error) {
      transaction.close();
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.off("error", onError);
      client.release(broken);
    }
  };
  // A transaction PostgreSQL chose as a deadlock's victim, or that met a stale prepared statement,
  // changed nothing; the store's transactions touch nothing outside the database, so running it again is safe.
  const transaction =
    (begin: string) =>
    async <T>(fn: (tx: Executor) => Promise<T>) => {
      for (let tries = 1; ; tries++) {
        try {
          return await attempt(begin, fn);
        } catch (error) {
          const retry = (error as { code?: string }).code === DEADLOCK || preparesAgain(error);
          if (!retry || tries === 3) throw error;
        }
      }
    };
  const bus = await postgresBus(url, pool);
  const outside = executorOf(postgresDialect, senderOn(pool, false));
  return {
    ...outside,
    // A batch of one statement is atomic on its own; of more, one transaction.
    batch: (statements) =>
      statements.flatMap((s) => s?.parts ?? []).length > 1 ? transaction("BEGIN")((tx) => tx.batch(statements)) : outside.batch(statements),
    bus,
    driver: { kind: "postgres", pool },
    write: transaction("BEGIN"),
    read: transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"),
    async migrations() {
      const shipped = JSON.parse(readFileSync(path.join(MIGRATIONS, "meta", "_journal.json"), "utf8")).entries.length;
      const { rows } = await pool.query<{ n: number }>({ text: "SELECT COUNT(*) AS n FROM drizzle.__drizzle_migrations", types });
      return { applied: rows[0].n, shipped };
    },
    async close() {
      await bus.close();
      await pool.end();
    },
  };
}
