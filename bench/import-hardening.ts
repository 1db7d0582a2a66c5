/**
 * Heavy imports (issue 37), part of `npm run bench -- --hardening` (`BENCH_HARDENING=imports` for these alone,
 * `BENCH_IMPORTS=loop,bigChat` for some): each upload is imported in a child process of its own
 * (bench/import-hardening-child.ts) while another user's request is timed every 5 ms, and the child samples its
 * own memory; one that does not answer in time is stopped, its memory read from outside.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The uploads, by name: what bench/import-hardening-child.ts builds. */
const IMPORT_SCENARIOS = {
  /** A ChatGPT conversations.json of one conversation whose mapping loops (a message its own child). */
  loop: "a 244-byte conversation whose message is its own child",
  /** A Retrace archive of one 20 MB chat (1,000 turns of 10 KB each way). */
  bigChat: "one 20 MB archive chat",
  /** 9,000 small ChatGPT conversations in one conversations.json. */
  smallChats: "9,000 small ChatGPT chats",
  /** A ZIP export whose one 60 MB attachment 200 user messages attach (the ZIP is 65 KB). */
  attachment60: "a 65 KB ZIP: one 60 MB attachment named by 200 messages",
  /** The same with a 9 MiB attachment, under the limit of a file. */
  attachment9: "a ZIP: one 9 MiB attachment named by 200 messages",
  /** A ZIP export whose one conversation's one message is a 300 MB string (the ZIP is 299 KB). */
  hugeValue: "a 299 KB ZIP holding one 300 MB string",
} as const;

export type ImportScenario = keyof typeof IMPORT_SCENARIOS;

/** How long an import may take before it counts as hung: a loop is stopped sooner. */
const timeoutOf = (scenario: ImportScenario) => (scenario === "loop" ? 20 : 300);

/** Resident memory of a running process, from outside (Linux). */
function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
}

/** Imports `scenario` in a child process; resolves with what it measured, or how it hung. */
async function importScenario(scenario: ImportScenario): Promise<Record<string, unknown>> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const child = spawn(
    process.execPath,
    [
      "--expose-gc",
      "--import",
      "tsx",
      "--import",
      path.join(here, "../scripts/server-context.mjs"),
      path.join(here, "import-hardening-child.ts"),
      scenario,
    ],
    { env: process.env, stdio: ["ignore", "pipe", "inherit"] },
  );
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += chunk;
  });
  let peakRss = 0;
  const sampler = setInterval(() => {
    try {
      if (output.includes("importing")) peakRss = Math.max(peakRss, rssOf(child.pid as number));
    } catch {
      // it has exited
    }
  }, 20);
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const timer = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), timeoutOf(scenario) * 1000).unref());
  const outcome = await Promise.race([exited, timer]);
  clearInterval(sampler);
  if (outcome === "timeout") {
    child.kill("SIGKILL");
    await exited;
    return { hung: `no answer after ${timeoutOf(scenario)} s (stopped)`, peakRssMb: Math.round(peakRss / 1024 ** 2) };
  }
  const last = output.trim().split("\n").at(-1) ?? "";
  if (outcome !== 0 || !last.startsWith("{")) return { crashed: `exit ${outcome}`, peakRssMb: Math.round(peakRss / 1024 ** 2) };
  const { baselineRss, ...figures } = JSON.parse(last) as { baselineRss: number };
  return { ...figures, addedRssMb: Math.round((peakRss - baselineRss) / 1024 ** 2) };
}

export async function importsBench() {
  const only = process.env.BENCH_IMPORTS?.split(",");
  const results: Record<string, unknown> = {};
  for (const scenario of Object.keys(IMPORT_SCENARIOS) as ImportScenario[]) {
    if (only && !only.includes(scenario)) continue;
    results[scenario] = { upload: IMPORT_SCENARIOS[scenario], ...(await importScenario(scenario)) };
    console.log(scenario, JSON.stringify(results[scenario]));
  }
  return results;
}
