/**
 * ChatGPT's ZIP export (the newer one splits conversations over `conversations-000.json`, `-001`, … beside
 * the attachments, named `file-<id>-<name>`). A ZIP's directory is at its end, so the upload is first
 * streamed to a temporary file; its conversation files are then read in order, and attachments on demand.
 */

import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import yauzl, { type Entry, type ZipFile } from "yauzl";
import { ValidationError } from "@/lib/errors";
import type { Attachment } from "./chatgpt";

/** Larger attachments are left out (the message says so): one is read into memory to be stored. */
const MAX_ATTACHMENT_BYTES = 64 * 1024 * 1024;

const CONVERSATIONS = /(^|\/)conversations(-\d+)?\.json$/;
const FILE_ID = /^(file[-_][A-Za-z0-9]+)(?:[-.](.*))?$/;

export interface ZipExport {
  /** The conversation files, in name order. */
  conversations: Entry[];
  read(entry: Entry): Promise<Readable>;
  attachment(attachment: Attachment): Promise<{ data: Buffer; name: string } | null>;
  close(): Promise<void>;
}

/** Streams `source` into a temporary file; resolves with its path and a function that removes it. */
export async function spoolToFile(source: AsyncIterable<Uint8Array>, onBytes: (bytes: number) => void) {
  const dir = await mkdtemp(path.join(tmpdir(), "retrace-upload-"));
  const file = path.join(dir, "upload.zip");
  const out = createWriteStream(file);
  let bytes = 0;
  try {
    for await (const chunk of source) {
      bytes += chunk.byteLength;
      onBytes(bytes);
      if (!out.write(chunk)) await once(out, "drain");
    }
    out.end();
    await once(out, "finish");
  } catch (error) {
    out.destroy();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { file, remove: () => rm(dir, { recursive: true, force: true }) };
}

function entries(zip: ZipFile): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    const found: Entry[] = [];
    zip.on("entry", (entry: Entry) => {
      found.push(entry);
      zip.readEntry();
    });
    zip.once("end", () => resolve(found));
    zip.once("error", reject);
    zip.readEntry();
  });
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function openZipExport(file: string): Promise<ZipExport> {
  let zip: ZipFile;
  try {
    zip = await yauzl.openPromise(file, { lazyEntries: true, autoClose: false });
  } catch (error) {
    throw new ValidationError(`The ZIP file cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  const all = await entries(zip);
  const conversations = all.filter((e) => CONVERSATIONS.test(e.fileName)).sort((a, b) => (a.fileName < b.fileName ? -1 : 1));
  if (conversations.length === 0) throw new ValidationError("The ZIP file has no conversations.json (nor conversations-000.json …)");
  const files = new Map<string, { entry: Entry; name: string }>();
  for (const entry of all) {
    const base = entry.fileName.split("/").at(-1) ?? "";
    const match = FILE_ID.exec(base);
    if (match && !entry.fileName.endsWith("/")) files.set(match[1], { entry, name: match[2] || base });
  }
  return {
    conversations,
    read: (entry) => zip.openReadStreamPromise(entry),
    async attachment({ id }) {
      const found = files.get(id.replace(/^file-service:\/\/|^sediment:\/\//, ""));
      if (!found || found.entry.uncompressedSize > MAX_ATTACHMENT_BYTES) return null;
      return { data: await readAll(await zip.openReadStreamPromise(found.entry)), name: found.name };
    },
    async close() {
      zip.close();
    },
  };
}
