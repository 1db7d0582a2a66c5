/**
 * One heavy import of bench/import-hardening.ts, in a process of its own: builds the upload into a temporary
 * file, then imports it from that file while another user reads their chat every 5 ms, and prints as JSON how
 * the import answered, how long it took and what the other user waited (its parent measures its memory).
 */
import { createReadStream } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { closeDb } from "@/lib/db/connection";
import { importUpload } from "@/lib/db/import-upload";
import { createSession, createUser, getSession } from "@/lib/db/queries";
import { conversation, LOOPS, zip } from "../tests/support/chatgpt";
import { archiveOfOneChat, attachedEverywhere, manyConversations } from "../tests/support/imports";
import type { ImportScenario } from "./import-hardening";

const MB = 1024 * 1024;

async function upload(scenario: ImportScenario): Promise<string | Buffer> {
  switch (scenario) {
    case "loop":
      return JSON.stringify([{ title: "Loop", mapping: LOOPS["a message that is its own child"] }]);
    case "bigChat":
      return archiveOfOneChat(1000, 10_000);
    case "smallChats":
      return manyConversations(9000);
    case "attachment60":
      return attachedEverywhere(60 * MB, 200);
    case "attachment9":
      return attachedEverywhere(9 * MB, 200);
    case "hugeValue": {
      // The text of one message: a string the parser, the conversion and the store would each hold.
      const [head, tail] = JSON.stringify([conversation("Huge", [{ id: "u", parent: null, role: "user", text: "<>" }], "u")]).split("<>");
      const text = Buffer.alloc(head.length + 300 * MB + tail.length, "x");
      text.write(head, 0);
      text.write(tail, text.length - tail.length);
      return zip({ "conversations.json": { data: text, deflate: true } });
    }
  }
}

const scenario = process.argv[2] as ImportScenario;
const dir = await mkdtemp(path.join(tmpdir(), "retrace-import-hardening-"));
if (!process.env.DATABASE_URL) process.env.DATABASE_PATH = path.join(dir, "retrace.db");
const file = path.join(dir, "upload");
let data: string | Buffer | null = await upload(scenario);
await writeFile(file, data);
const size = Buffer.byteLength(data);
data = null;
const userId = await createUser();
const probeUser = await createUser();
const probeSession = (await createSession(probeUser, { name: "probe" })).id;
global.gc?.();
const baseline = process.memoryUsage().rss;
let done = false;
const waits: number[] = [];
const probing = (async () => {
  while (!done) {
    const due = performance.now() + 5;
    await new Promise((r) => setTimeout(r, 5));
    await getSession(probeUser, probeSession);
    waits.push(performance.now() - due);
  }
})();
// The parent samples this process's memory from outside from now on: a blocked event loop samples nothing.
console.log(`importing from an RSS of ${baseline}`);
const started = performance.now();
let answer: string;
try {
  const chats = await importUpload(userId, createReadStream(file), { agent: "demo", agents: ["demo"] });
  answer = `201: ${chats.length} chats`;
} catch (error) {
  const e = error as { status?: number; message: string };
  answer = `${e.status ?? 500}: ${e.message.slice(0, 160)}`;
}
const ms = performance.now() - started;
done = true;
await probing;
await closeDb();
await rm(dir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    uploadBytes: size,
    answer,
    ms: Math.round(ms),
    otherUserWorstMs: Math.round(Math.max(0, ...waits)),
    otherUserOver200ms: `${Math.round((100 * waits.filter((w) => w > 200).length) / Math.max(1, waits.length))} % of ${waits.length}`,
    baselineRss: baseline,
  }),
);
