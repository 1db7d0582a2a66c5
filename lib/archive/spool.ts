/**
 * A buffer for one chat's records while its part of an upload streams in: in memory up to a budget, then in
 * a temporary file, so a chat of any size is written in one short transaction (after its last byte has
 * arrived, never waiting on the network) in bounded memory.
 */

import { once } from "node:events";
import { createReadStream, createWriteStream, type WriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";

/** Input bytes of one chat held in memory before the rest goes to disk. */
const SPOOL_MEMORY_BYTES = 4 * 1024 * 1024;

export class Spool<T> {
  private memory: T[] = [];
  private dir: string | null = null;
  private file: WriteStream | null = null;

  constructor(private readonly budget = SPOOL_MEMORY_BYTES) {}

  /** Keeps `record`; `inputBytes` is how much of the upload this chat has taken so far. */
  async add(record: T, inputBytes: number): Promise<void> {
    if (!this.file && inputBytes <= this.budget) {
      this.memory.push(record);
      return;
    }
    if (!this.file) {
      this.dir = await mkdtemp(path.join(tmpdir(), "retrace-spool-"));
      this.file = createWriteStream(path.join(this.dir, "records.jsonl"));
    }
    if (!this.file.write(`${JSON.stringify(record)}\n`)) await once(this.file, "drain");
  }

  /** Every record kept, in order. */
  async *records(): AsyncGenerator<T> {
    yield* this.memory;
    if (!this.file || !this.dir) return;
    this.file.end();
    await once(this.file, "finish");
    const lines = createInterface({ input: createReadStream(path.join(this.dir, "records.jsonl")), crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of lines) if (line) yield JSON.parse(line) as T;
  }

  async dispose(): Promise<void> {
    this.memory = [];
    this.file?.destroy();
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
    this.file = null;
    this.dir = null;
  }
}
