/**
 * ChatGPT's ZIP export (the newer one splits conversations over `conversations-000.json`, `-001`, … beside
 * the attachments, named `file-<id>-<name>`). A ZIP's directory is at its end, so the upload is first
 * streamed to a temporary file; its conversation files are then read in order, and attachments on demand.
 * Whatever yauzl refuses — an entry named `../x` or `/x`, a size its directory lies about, a damaged
 * entry — is a malformed upload: a 400 that says what yauzl found.
 */

import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import yauzl, { type Entry, type ZipFile } from "yauzl";
import { AppError, ValidationError } from "@/lib/errors";
import type { Attachment } from "./chatgpt";
import { MAX_FILE_BYTES } from "./format";

const CONVERSATIONS = /(^|\/)conversations(-\d+)?\.json$/;
const FILE_ID = /^(file[-_][A-Za-z0-9]+)(?:[-.](.*))?$/;

/** An attachment the export holds: its size as the ZIP's directory says (reading checks it), its bytes on demand. */
export interface FoundAttachment {
  name: string;
  size: number;
  read(): Promise<Buffer>;
}

export interface ZipExport {
  /** The conversation files, in name order. */
  conversations: Entry[];
  read(entry: Entry): AsyncIterable<Uint8Array>;
  /** Null when the export does not hold it, or holds one larger than MAX_FILE_BYTES (left out: the message says so). */
  attachment(attachment: Attachment): Promise<FoundAttachment | null>;
  close(): Promise<void>;
}

const unreadable = (error: unknown) =>
  error instanceof AppError
    ? error
    : new ValidationError(`The ZIP file cannot be read: ${error instanceof Error ? error.message : String(error)}`);

/** An entry's bytes; yauzl's complaints on the way (more bytes than the directory said, say) become a 400. */
async function* checked(open: () => Promise<Readable>): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of await open()) yield chunk as Uint8Array;
  } catch (error) {
    throw unreadable(error);
  }
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
    zip.once("error", (error) => reject(unreadable(error)));
    zip.readEntry();
  });
}

async function readAll(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

export async function openZipExport(file: string): Promise<ZipExport> {
  let zip: ZipFile;
  try {
    zip = await yauzl.openPromise(file, { lazyEntries: true, autoClose: false });
  } catch (error) {
    throw unreadable(error);
  }
  let all: Entry[];
  try {
    all = await entries(zip);
  } catch (error) {
    zip.close();
    throw error;
  }
  const conversations = all.filter((e) => CONVERSATIONS.test(e.fileName)).sort((a, b) => (a.fileName < b.fileName ? -1 : 1));
  if (conversations.length === 0) {
    zip.close();
    throw new ValidationError("The ZIP file has no conversations.json (nor conversations-000.json …)");
  }
  const files = new Map<string, { entry: Entry; name: string }>();
  for (const entry of all) {
    const base = entry.fileName.split("/").at(-1) ?? "";
    const match = FILE_ID.exec(base);
    if (match && !entry.fileName.endsWith("/")) files.set(match[1], { entry, name: match[2] || base });
  }
  return {
    conversations,
    read: (entry) => checked(() => zip.openReadStreamPromise(entry)),
    async attachment({ id }) {
      const found = files.get(id.replace(/^file-service:\/\/|^sediment:\/\//, ""));
      if (!found || found.entry.uncompressedSize > MAX_FILE_BYTES) return null;
      const { entry, name } = found;
      return { name, size: entry.uncompressedSize, read: () => readAll(checked(() => zip.openReadStreamPromise(entry))) };
    },
    async close() {
      zip.close();
    },
  };
}
