/**
 * `npm run bench -- --map`: the map alone, on a chat of 1,000 turns (BENCH_SIZES for others): its tree over
 * HTTP, the crossing edges in its layout, and in Chromium its first opening in a page, opening it again and a
 * click on a turn until the chat shows that version (bench/browser.bench.ts), as medians and 95th percentiles.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { issueToken } from "@/lib/accounts/guest-token";
import { createUser } from "@/lib/db/queries";
import type { ChatTree } from "@/lib/session/tree";
import { mapGraph } from "../components/chat/map/map-model";
import { crossings } from "../tests/support/crossings";
import { label, PORT, ROOT } from "./env";
import { buildSession } from "./fixtures";
import { middle, p95 } from "./measure";
import { build, run, startServer } from "./servers";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const HTTP_RUNS = 50;

const figure = (times: number[]) => ({ p50: middle(times), p95: p95(times), runs: times.length });

export async function mapBench() {
  const sizes = (process.env.BENCH_SIZES ?? "1000").split(",").map(Number);
  const userId = await createUser();
  const chats: Record<string, string> = {};
  for (const n of sizes) chats[label(n)] = (await buildSession(userId, n)).sessionId;
  build();
  const server = await startServer(PORT);
  const token = await issueToken(userId);
  const figures: Record<string, unknown> = {};
  try {
    for (const [size, chatId] of Object.entries(chats)) {
      const get = () =>
        fetch(`${server.base}/api/sessions/${chatId}/tree`, { headers: { authorization: `Bearer ${token}` } }).then(async (r) => {
          if (!r.ok) throw new Error(`tree: HTTP ${r.status}`);
          return ((await r.json()) as { data: ChatTree }).data;
        });
      const tree = await get();
      const times: number[] = [];
      for (let i = 0; i < HTTP_RUNS; i++) {
        const started = performance.now();
        await get();
        times.push(performance.now() - started);
      }
      const graph = mapGraph(tree);
      figures[size] = {
        nodes: graph.nodes.length,
        crossingEdges: crossings(graph.nodes, new Map(graph.nodes.map((n) => [n.id, n.position]))),
        httpTree: figure(times),
      };
    }
    const out = path.join(ROOT, ".bench-data", "map.json");
    run("npx", ["playwright", "test", "-c", "bench/playwright.config.ts"], {
      BENCH_URL: server.base,
      BENCH_TOKEN: token,
      BENCH_CHATS: JSON.stringify(chats),
      BENCH_OUT: out,
      BENCH_MAP_ONLY: "1",
      BENCH_BROWSER_RUNS: String(RUNS),
    });
    const measured = JSON.parse(readFileSync(out, "utf8")) as Record<string, Record<string, number[]>>;
    for (const [size, m] of Object.entries(measured)) {
      figures[size] = {
        ...(figures[size] as object),
        firstOpening: figure(m.first),
        reopening: figure(m.again),
        clickToVersion: figure(m.click),
      };
    }
  } finally {
    await server.stop();
  }
  return figures;
}
