/**
 * The code's shape (issue 32): a static import graph of lib/, components/ and app/ built from the source
 * text. Every `import` and `export … from` counts, `import type` too: a type-only import still couples
 * two modules, and a circle through types is a circle to read. So does `import()`: a module loaded lazily
 * is still a module the importer needs.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts"))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));
}

const files = ["lib", "components", "app"].flatMap(sources);
const known = new Set(files);
const IMPORT = /^\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|^\s*import\s+["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm;

function resolve(from: string, spec: string): string | null {
  const base = spec.startsWith("@/") ? spec.slice(2) : spec.startsWith(".") ? path.join(path.dirname(from), spec) : null;
  if (base === null) return null;
  return [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`].find((c) => known.has(c)) ?? null;
}

const graph = new Map(
  files.map((f) => {
    const text = readFileSync(path.join(ROOT, f), "utf8");
    const deps = [...text.matchAll(IMPORT)].map((m) => resolve(f, m[1] ?? m[2] ?? m[3])).filter((d) => d !== null);
    return [f, [...new Set(deps)]];
  }),
);

/** Strongly connected groups of more than one module (Tarjan): each is an import circle. */
function circles(): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || graph.get(v)?.includes(v)) found.push(group.sort());
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return found;
}

/** lib/db's modules that are neither steps nor operations: the connection, the dialects, shapes, the facade. */
const INFRASTRUCTURE = new Set(
  [
    "bus",
    "connection",
    "database",
    "paging",
    "postgres",
    "postgres-bus",
    "prepare",
    "queries",
    "rows",
    "sqlite",
    "sqlite-checkpoints",
    "types",
  ].map((name) => `lib/db/${name}.ts`),
);
/** Flows sequence operations on purpose: an upload commits each of its chats in a transaction of its own. */
const FLOWS = new Set(["lib/db/queries.ts", "lib/db/import-upload.ts"]);

/**
 * The layers, lowest first: a module imports from its own layer or lower ones, never higher. The domain is
 * pure; the store builds on it; the runtime and accounts on the store; the HTTP and A2A layers on those;
 * then the UI, then the app's routes and pages.
 */
const LAYERS = [
  ["lib/errors", "lib/session", "lib/task", "lib/query-keys"],
  ["lib/config", "lib/archive", "lib/telemetry"],
  ["lib/db"],
  ["lib/agent", "lib/accounts"],
  ["lib/a2a", "lib/api", "lib/server"],
  ["components"],
  ["app"],
];
const areaOf = (f: string) => {
  const parts = f.split("/");
  return parts[0] === "lib" ? (parts.length > 2 ? `lib/${parts[1]}` : f.replace(/\.tsx?$/, "")) : parts[0];
};
const layerOf = (f: string) => LAYERS.findIndex((layer) => layer.includes(areaOf(f)));

const isStep = (f: string) => f.startsWith("lib/db/tx/");
const isOperation = (f: string) => /^lib\/db\/[^/]+\.ts$/.test(f) && !INFRASTRUCTURE.has(f) && !FLOWS.has(f);
const importsOf = (f: string) => graph.get(f) ?? [];

describe("code shape", () => {
  it("has no import circles in lib/, components/ or app/", () => {
    expect(circles()).toEqual([]);
  });

  it("imports nothing from a higher layer", () => {
    expect(files.filter((f) => layerOf(f) < 0)).toEqual([]);
    const upward = files.flatMap((f) =>
      importsOf(f)
        .filter((d) => layerOf(d) > layerOf(f))
        .map((d) => `${f} -> ${d}`),
    );
    expect(upward).toEqual([]);
  });

  it("steps never import operations, flows or the connection", () => {
    const wrong = files.filter(isStep).flatMap((f) =>
      importsOf(f)
        .filter((d) => isOperation(d) || FLOWS.has(d) || d === "lib/db/connection.ts")
        .map((d) => `${f} -> ${d}`),
    );
    expect(wrong).toEqual([]);
  });

  it("operations never import one another", () => {
    const wrong = files.filter(isOperation).flatMap((f) =>
      importsOf(f)
        .filter(isOperation)
        .map((d) => `${f} -> ${d}`),
    );
    expect(wrong).toEqual([]);
  });

  it("only steps know about a log's pieces (lib/db/tx/log.ts)", () => {
    const wrong = files.filter((f) => !isStep(f) && importsOf(f).includes("lib/db/tx/log.ts"));
    expect(wrong).toEqual([]);
  });

  it("sends statements together only in a batch: no promise-order concurrency in lib/db outside the drivers", () => {
    const drivers = new Set(["lib/db/database.ts", "lib/db/postgres.ts", "lib/db/sqlite.ts", "lib/db/sqlite-checkpoints.ts"]);
    const wrong = files.filter(
      (f) =>
        f.startsWith("lib/db/") &&
        !drivers.has(f) &&
        /Promise\.(all|allSettled|race|any)\(|\bsettled\(/.test(readFileSync(path.join(ROOT, f), "utf8")),
    );
    expect(wrong).toEqual([]);
  });

  it("keeps every file in lib/, components/ and app/ at 300 lines or fewer", () => {
    const long = files
      .map((f) => ({ f, lines: readFileSync(path.join(ROOT, f), "utf8").split("\n").length - 1 }))
      .filter((x) => x.lines > 300)
      .map((x) => `${x.f}: ${x.lines}`);
    expect(long).toEqual([]);
  });

  it("defines React Query keys in lib/query-keys.ts only", () => {
    const wrong = files.filter((f) => f !== "lib/query-keys.ts" && /queryKey:\s*\[/.test(readFileSync(path.join(ROOT, f), "utf8")));
    expect(wrong).toEqual([]);
  });

  it("reaches the store from outside lib/db through its doors only", () => {
    // queries.ts: the operations; types.ts: the shapes the browser shares (queries.ts is server-only);
    // connection.ts: the connection itself (start-up, health, the turn bus, better-auth's adapter).
    const doors = new Set(["lib/db/queries.ts", "lib/db/types.ts", "lib/db/connection.ts"]);
    // better-auth is handed the accounts tables' drizzle schema, which only the adapter needs.
    const adapter = (f: string, d: string) => f === "lib/accounts/better-auth.ts" && d.startsWith("lib/db/schema/accounts-");
    const wrong = files
      .filter((f) => !f.startsWith("lib/db/"))
      .flatMap((f) =>
        importsOf(f)
          .filter((d) => d.startsWith("lib/db/") && !doors.has(d) && !adapter(f, d))
          .map((d) => `${f} -> ${d}`),
      );
    expect(wrong).toEqual([]);
  });
});
