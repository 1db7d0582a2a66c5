/**
 * `npm run bench` (`-- --db postgres` for PostgreSQL): rewind, undo, fork, switch, append and paged reads
 * on sessions of 100, 1k and 10k invocations, through the store and through the HTTP API of the production
 * build. Prints medians with each size's ratio to the previous one; writes bench/results-<dialect>.json.
 * `-- --load`: the load bench (bench/load-<dialect>.json); `-- --turns`: a turn's cost in-process
 * (bench/turns-<dialect>.json); `-- --hardening`: heavy requests and what another user waits meanwhile, and
 * what a guest stores under a 1 MB quota (bench/hardening-<dialect>.json); `-- --search`: search over
 * 1,000,000 stored messages (bench/search-<dialect>.json); `-- --map`: the map alone (bench/map-<dialect>.json);
 * `-- --tools`: the approval gate's cost and a decision's way from instance B to a tab on A (bench/tools-<dialect>.json);
 * `-- --attachments`: a 200 MB upload's memory and a fork of a chat with 500 MB of attachments (bench/attachments-<dialect>.json);
 * `-- --overhead`: streaming a model's reply through Retrace beside a bare relay, SQLite and PostgreSQL in one run (bench/overhead.json).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { issueToken } from "@/lib/accounts/guest-token";
import { closeDb, getDb } from "@/lib/db/connection";
import { createUser } from "@/lib/db/queries";
import { startPostgres } from "../scripts/test-postgres";
import { attachmentsBench } from "./attachments";
import { authBench } from "./auth";
import {
  ATTACHMENTS,
  AUTH,
  DIALECT,
  HARDENING,
  LOAD,
  label,
  MAP,
  OVERHEAD,
  PORT,
  prepareEnvironment,
  ROOT,
  RUNS,
  SEARCH,
  SIZES,
  TOOLS,
  TURNS,
} from "./env";
import { buildSession } from "./fixtures";
import { hardeningBench } from "./hardening";
import { httpBench } from "./http";
import { loadBench } from "./load";
import { mapBench } from "./map-figures";
import { type Row, sideBySide } from "./measure";
import { overheadBench, overheadTable } from "./overhead";
import { Results } from "./results";
import { searchBench } from "./search";
import { build, run, type Server, startServer } from "./servers";
import { type Built, storeBench } from "./store";
import { toolsBench } from "./tools";
import { turnsBench } from "./turns";

async function benchSizes(results: Results) {
  const userId = await createUser();
  const built: Built[] = [];
  for (const n of SIZES) {
    const started = performance.now();
    const session = { ...(await buildSession(userId, n)), size: label(n) };
    console.log(`built ${n} invocations in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    // A running PostgreSQL has statistics for its tables (autovacuum analyzes after bulk writes); a
    // just-loaded bench table has none yet, and some plans would be measured blind.
    if (DIALECT === "postgres") await (await getDb()).run(sql`ANALYZE`);
    built.push(session);
    await storeBench(results, RUNS, userId, session);
  }
  build();
  const server = await startServer(PORT);
  try {
    const token = await issueToken(userId);
    for (const session of built) await httpBench(results, RUNS, server.base, token, session);
    browserBench(results, server.base, token, built);
  } finally {
    await server.stop();
  }
}

/** The chat page in Chromium on every size's session (bench/browser.bench.ts). */
function browserBench(results: Results, base: string, token: string, built: Built[]) {
  const out = path.join(ROOT, ".bench-data", "browser.json");
  const chats = Object.fromEntries(built.map((b) => [b.size, b.sessionId]));
  run("npx", ["playwright", "test", "-c", "bench/playwright.config.ts"], {
    BENCH_URL: base,
    BENCH_TOKEN: token,
    BENCH_CHATS: JSON.stringify(chats),
    BENCH_OUT: out,
  });
  const measured = JSON.parse(readFileSync(out, "utf8")) as Record<string, Record<string, number>>;
  for (const [size, m] of Object.entries(measured)) {
    results.record("browser: chat visible", size, m.visible, "≤ 1000 ms, ≤ 1.3× 100");
    results.record("browser: rewind click → updated list", size, m.rewind, "≤ 300 ms");
    results.record("browser: worst frame scrolling up 3 pages", size, m.worstFrame, "≤ 100 ms");
    results.record("browser: DOM elements", size, m.elements, "flat");
    results.record("browser: map's first opening in a page", size, m.mapFirstOpen, "≤ 300 ms at 1k");
    results.record("browser: map opens again (tree read anew)", size, m.mapOpen, "≤ 300 ms at 1k");
    results.record("browser: map click → version shown", size, m.mapClick, "≤ 150 ms");
  }
}

async function main() {
  if (OVERHEAD) {
    // Its own data and servers, SQLite and PostgreSQL both: nothing of the environment below.
    const figures = await overheadBench();
    console.log(`\nStreaming overhead (ms unless said), one run:\n\n${overheadTable(figures)}`);
    writeFileSync(path.join(ROOT, "bench/overhead.json"), JSON.stringify({ date: new Date().toISOString(), ...figures }, null, 2));
    return;
  }
  const postgres = DIALECT === "postgres" ? await startPostgres({ durable: true }) : null;
  prepareEnvironment(postgres?.url);
  try {
    if (HARDENING) {
      const figures = await hardeningBench();
      console.log(`\nHeavy requests on ${DIALECT}:`, JSON.stringify(figures, null, 2));
      writeFileSync(
        path.join(ROOT, `bench/hardening-${DIALECT}.json`),
        JSON.stringify({ date: new Date().toISOString(), ...figures }, null, 2),
      );
      return;
    }
    if (AUTH) {
      build();
      const server = await startServer(PORT);
      try {
        const auth = await authBench(server.base);
        console.log(`\nWhat signing in costs a request on ${DIALECT} (ms, ${auth.rounds} requests of each kind):`);
        for (const row of auth.rows) console.log(`  ${row.kind.padEnd(26)} p50 ${row.p50.toFixed(2)}  p99 ${row.p99.toFixed(2)}`);
        console.log(
          `  signed in adds ${auth.signInAddsP50.toFixed(2)} ms at p50 (target ≤ 5); an API token ${auth.tokenAddsP50.toFixed(2)}`,
        );
        writeFileSync(path.join(ROOT, `bench/auth-${DIALECT}.json`), JSON.stringify({ date: new Date().toISOString(), ...auth }, null, 2));
      } finally {
        await server.stop();
      }
      return;
    }
    if (ATTACHMENTS) {
      const figures = await attachmentsBench();
      console.log(`\nAttachments on ${DIALECT}:`, JSON.stringify(figures, null, 2));
      writeFileSync(
        path.join(ROOT, `bench/attachments-${DIALECT}.json`),
        JSON.stringify({ date: new Date().toISOString(), ...figures }, null, 2),
      );
      return;
    }
    if (MAP) {
      const figures = await mapBench();
      console.log(`\nThe map on ${DIALECT} (ms):`, JSON.stringify(figures, null, 2));
      writeFileSync(path.join(ROOT, `bench/map-${DIALECT}.json`), JSON.stringify({ date: new Date().toISOString(), ...figures }, null, 2));
      return;
    }
    if (SEARCH) {
      const figures = await searchBench();
      console.log(`\nSearch on ${DIALECT} (ms):`, JSON.stringify(figures, null, 2));
      writeFileSync(
        path.join(ROOT, `bench/search-${DIALECT}.json`),
        JSON.stringify({ date: new Date().toISOString(), ...figures }, null, 2),
      );
      return;
    }
    if (TOOLS) {
      build();
      const servers: Server[] = [];
      for (let i = 0; i < (postgres ? 2 : 1); i++) servers.push(await startServer(PORT + i));
      try {
        const tools = await toolsBench(servers.map((s) => s.base));
        console.log(`\nTools on ${DIALECT} (ms):`, tools);
        writeFileSync(
          path.join(ROOT, `bench/tools-${DIALECT}.json`),
          JSON.stringify({ date: new Date().toISOString(), ...tools }, null, 2),
        );
      } finally {
        await Promise.all(servers.map((s) => s.stop()));
      }
      return;
    }
    if (TURNS) {
      const turns = await turnsBench(DIALECT);
      console.log(`\nA demo-agent turn in-process on ${DIALECT}:`, turns);
      writeFileSync(path.join(ROOT, `bench/turns-${DIALECT}.json`), JSON.stringify({ date: new Date().toISOString(), ...turns }, null, 2));
      return;
    }
    if (LOAD) {
      build();
      const servers: Server[] = [];
      const instances = Number(process.env.BENCH_LOAD_INSTANCES ?? (postgres ? 2 : 1));
      for (let i = 0; i < instances; i++) servers.push(await startServer(PORT + i, { DATABASE_POOL_SIZE: "20" }));
      try {
        const load = await loadBench(servers.map((s) => s.base));
        console.log(`\nLoad on ${DIALECT} (${load.instances} instance(s)):`, load);
        writeFileSync(path.join(ROOT, `bench/load-${DIALECT}.json`), JSON.stringify({ date: new Date().toISOString(), ...load }, null, 2));
      } finally {
        await Promise.all(servers.map((s) => s.stop()));
      }
      return;
    }
    const results = new Results();
    await benchSizes(results);
    const sizes = SIZES.map(label);
    console.log(`\n${DIALECT}: medians of ${RUNS} runs (ms); ×N = ratio to the previous size\n`);
    console.log(results.table(sizes));
    const sqlite = path.join(ROOT, "bench/results-sqlite.json");
    if (DIALECT === "postgres" && existsSync(sqlite)) {
      const largest = sizes.at(-1) as string;
      console.log(`\n${largest}: the last SQLite run beside this one (×sqlite = PostgreSQL / SQLite)\n`);
      const earlier = JSON.parse(readFileSync(sqlite, "utf8")) as { rows: Row[] };
      console.log(sideBySide({ name: "sqlite", rows: earlier.rows }, { name: "postgres", rows: results.all() }, largest));
    }
    writeFileSync(
      path.join(ROOT, `bench/results-${DIALECT}.json`),
      JSON.stringify({ date: new Date().toISOString(), dialect: DIALECT, runs: RUNS, sizes, rows: results.all() }, null, 2),
    );
  } finally {
    await closeDb();
    postgres?.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
