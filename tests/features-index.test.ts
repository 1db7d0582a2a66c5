/**
 * docs/features.md, the feature index, stays true: every route it names is served (its method exported by the
 * route file, or a page), every file and folder exists, every table is in the schema, every section link lands.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

const lines = read("docs/features.md").split("\n");
const header = lines.findIndex((l) => l.startsWith("| feature |"));
const columns = lines[header].split("|").map((c) => c.trim());
const rows = lines
  .slice(header + 2)
  .filter((l) => l.startsWith("|"))
  .map((l) => {
    const cells = l.split("|").map((c) => c.trim());
    return Object.fromEntries(columns.map((name, i) => [name, cells[i] ?? ""]).filter(([name]) => name));
  });
const named = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

/** `POST /api/sessions/{id}/fork` → app/api/sessions/[id]/fork/route.ts exporting POST (a GET may be a page). */
function routeProblem(route: string): string | null {
  const [method, url] = route.split(" ");
  const dir = path.join("app", ...url.split("/").map((s) => s.replace(/^\{(.+)\}$/, "[$1]")));
  const handler = path.join(dir, "route.ts");
  if (existsSync(path.join(ROOT, handler))) {
    const exported = new RegExp(`export (async function|const|function) ${method}\\b|export \\{[^}]*\\b${method}\\b`);
    return exported.test(read(handler)) ? null : `${route}: ${handler} exports no ${method}`;
  }
  if (method === "GET" && existsSync(path.join(ROOT, dir, "page.tsx"))) return null;
  return `${route}: no ${handler}`;
}

const BASES: Record<string, string> = { operations: "lib/db", steps: "lib/db/tx", domain: "", UI: "components", tests: "" };

const schemaTables = new Set(
  ["sqlite.ts", "accounts-sqlite.ts", "blobs-sqlite.ts"].flatMap((f) =>
    [...read(`lib/db/schema/${f}`).matchAll(/sqliteTable\(\s*"([a-z_]+)"/g)].map((m) => m[1]),
  ),
);

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
const anchors = (file: string) =>
  new Set(
    read(file)
      .split("\n")
      .filter((l) => /^#{1,4} /.test(l))
      .map((l) =>
        l
          .replace(/^#+ /, "")
          .toLowerCase()
          .replace(/[^\p{L}\p{N} _-]/gu, "")
          .replace(/ /g, "-"),
      ),
  );

describe("the feature index (docs/features.md)", () => {
  it("has a row per feature with every column", () => {
    expect(rows.length).toBeGreaterThan(10);
    for (const row of rows) expect(named(row.tests).length, row.feature).toBeGreaterThan(0);
  });

  it("names routes that are served", () => {
    const wrong = rows.flatMap((row) => named(row.routes).map(routeProblem)).filter((p) => p !== null);
    expect(wrong).toEqual([]);
  });

  it("names files and folders that exist", () => {
    const wrong = rows.flatMap((row) =>
      Object.entries(BASES).flatMap(([column, base]) =>
        named(row[column])
          .map((p) => path.join(base, p))
          .filter((p) => !existsSync(path.join(ROOT, p)))
          .map((p) => `${row.feature}: ${column} ${p}`),
      ),
    );
    expect(wrong).toEqual([]);
  });

  it("names tables of the schema", () => {
    const wrong = rows.flatMap((row) => named(row.tables).filter((t) => !schemaTables.has(t)));
    expect(wrong).toEqual([]);
  });

  it("links sections that exist", () => {
    const wrong = rows.flatMap((row) =>
      [...row.docs.matchAll(/\]\(([^)#]+)#([^)]+)\)/g)]
        .map(([, file, anchor]) => ({ file: path.join("docs", file), anchor }))
        .filter(({ file, anchor }) => !existsSync(path.join(ROOT, file)) || !anchors(file).has(anchor))
        .map(({ file, anchor }) => `${row.feature}: ${file}#${anchor}`),
    );
    expect(wrong).toEqual([]);
  });
});
