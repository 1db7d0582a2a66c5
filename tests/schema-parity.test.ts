/**
 * The two dialects' drizzle schemas are written twice (their column types and table builders differ), so this
 * holds them together: the same tables, columns, nullability, defaults, keys and indexes, apart from the full-text
 * index, which each dialect builds its own way. `SessionRow` is held to the sessions table at compile time.
 */
import { getTableName, is, SQL, StringChunk, Table } from "drizzle-orm";
import { getTableConfig as pgConfig } from "drizzle-orm/pg-core";
import { getTableConfig as sqliteConfig } from "drizzle-orm/sqlite-core";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { SessionRow } from "@/lib/db/rows";
import * as accountsPostgres from "@/lib/db/schema/accounts-postgres";
import * as accountsSqlite from "@/lib/db/schema/accounts-sqlite";
import * as blobsPostgres from "@/lib/db/schema/blobs-postgres";
import * as blobsSqlite from "@/lib/db/schema/blobs-sqlite";
import * as storePostgres from "@/lib/db/schema/postgres";
import * as storeSqlite from "@/lib/db/schema/sqlite";

/** The accounts and attachments tables live in their own files (they import `users`), so the parts are held together here. */
const sqlite = { ...storeSqlite, ...accountsSqlite, ...blobsSqlite };
const postgres = { ...storePostgres, ...accountsPostgres, ...blobsPostgres };
const ACCOUNTS_TABLES = [
  "authUsers",
  "authSessions",
  "authAccounts",
  "authVerifications",
  "authPasskeys",
  "authRateLimits",
  "apiTokens",
  "invites",
];

/** What only one dialect has: SQLite's FTS5 table (a hand-written migration) is keyed by `search_pos`; PostgreSQL indexes its rows in place. */
const ONLY_SQLITE = ["events.index.events_search_pos"];
const ONLY_POSTGRES = ["events.search_owner", "events.search_doc", "events.index.events_search", "events.index.events_search_owner"];

type Config = ReturnType<typeof sqliteConfig> | ReturnType<typeof pgConfig>;

/** A partial index's predicate that each dialect says in its own JSON syntax (`waitingTask`, lib/db/tx/tasks.ts), as SQLite says it. */
const SAME_WHERE: Record<string, string> = {
  "(CAST(task AS jsonb) #>> '{status,state}') = 'input-required'": "json_extract(task, '$.status.state') = 'input-required'",
};

const whereText = (where: unknown) => {
  if (!is(where, SQL)) return null;
  const text = where.queryChunks.map((chunk) => (is(chunk, StringChunk) ? chunk.value.join("") : "?")).join("");
  return SAME_WHERE[text] ?? text;
};

/** Everything both dialects must agree on, one line per fact, keyed so a difference names what differs. */
function facts(config: Config): Record<string, unknown> {
  const at = config.name;
  const out: Record<string, unknown> = {};
  for (const c of config.columns) {
    out[`${at}.${c.name}`] = { notNull: c.notNull, primary: c.primary, unique: c.isUnique, default: c.default };
  }
  for (const pk of config.primaryKeys) out[`${at}.primaryKey`] = pk.columns.map((c) => c.name);
  for (const fk of config.foreignKeys) {
    const ref = fk.reference();
    out[`${at}.references.${ref.columns.map((c) => c.name).join(",")}`] = {
      table: getTableName(ref.foreignTable),
      columns: ref.foreignColumns.map((c) => c.name),
      onDelete: fk.onDelete,
    };
  }
  for (const { config: index } of config.indexes) {
    out[`${at}.index.${index.name}`] = {
      unique: index.unique,
      columns: index.columns.map((c) => ("name" in c ? c.name : "?")),
      where: whereText(index.where),
    };
  }
  return out;
}

const without = (all: Record<string, unknown>, skip: string[]) =>
  Object.fromEntries(Object.entries(all).filter(([key]) => !skip.includes(key)));

function schemaFacts(schema: object, configOf: (table: never) => Config) {
  const tables = Object.values(schema).filter((value) => is(value, Table));
  return Object.assign({}, ...tables.map((table) => facts(configOf(table as never))));
}

describe("the SQLite and PostgreSQL schemas", () => {
  it("export the same tables under the same names", () => {
    const tablesOf = (schema: object) =>
      Object.entries(schema)
        .filter(([, value]) => is(value, Table))
        .map(([key]) => key)
        .sort();
    expect(tablesOf(postgres)).toEqual(tablesOf(sqlite));
    expect(tablesOf(sqlite)).toEqual(expect.arrayContaining(ACCOUNTS_TABLES));
  });

  it("agree on columns, nullability, defaults, keys and indexes", () => {
    const fromSqlite = schemaFacts(sqlite, sqliteConfig);
    const fromPostgres = schemaFacts(postgres, pgConfig);
    for (const key of ONLY_SQLITE) expect(fromSqlite).toHaveProperty([key]);
    for (const key of ONLY_POSTGRES) expect(fromPostgres).toHaveProperty([key]);
    expect(without(fromPostgres, ONLY_POSTGRES)).toEqual(without(fromSqlite, ONLY_SQLITE));
  });

  it("match SessionRow: one field per sessions column, nullable exactly where the column is", () => {
    type Nullability<Row> = { [K in keyof Row]-?: null extends Row[K] ? "nullable" : "required" };
    type Columns<T extends Table> = {
      [K in keyof T["_"]["columns"] as T["_"]["columns"][K]["_"]["name"]]: T["_"]["columns"][K]["_"]["notNull"] extends true
        ? "required"
        : "nullable";
    };
    expectTypeOf<Nullability<SessionRow>>().toEqualTypeOf<Columns<typeof storeSqlite.sessions>>();
    expectTypeOf<Nullability<SessionRow>>().toEqualTypeOf<Columns<typeof storePostgres.sessions>>();
    expect(sqliteConfig(sqlite.sessions).columns.length).toBe(pgConfig(postgres.sessions).columns.length);
  });
});
