/** The importing process of bench/import-memory.ts: imports one archive file and prints what it measured, as JSON. */
import { createReadStream } from "node:fs";
import { closeDb } from "@/lib/db/connection";
import { importUpload } from "@/lib/db/import-upload";
import { createUser } from "@/lib/db/queries";

const file = process.argv[2];
let peakRss = 0;
let peakHeap = 0;
const sample = () => {
  const { rss, heapUsed } = process.memoryUsage();
  peakRss = Math.max(peakRss, rss);
  peakHeap = Math.max(peakHeap, heapUsed);
};
const userId = await createUser();
const baseline = process.memoryUsage().rss;
const sampler = setInterval(sample, 20);
const started = performance.now();
let bytes = 0;
const chats = await importUpload(userId, createReadStream(file), {
  agent: "demo",
  agents: ["demo"],
  onProgress: (p) => {
    bytes = p.bytes;
  },
});
const ms = performance.now() - started;
sample();
clearInterval(sampler);
await closeDb();
console.log(
  JSON.stringify({
    bytes,
    chats: chats.length,
    ms,
    peakRssMb: peakRss / 1024 ** 2,
    peakHeapMb: peakHeap / 1024 ** 2,
    baselineRssMb: baseline / 1024 ** 2,
  }),
);
