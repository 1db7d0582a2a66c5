/**
 * Uploads (docs/api.md, "Uploads"): a file streamed in chunk by chunk — each chunk hashed and stored in a short
 * transaction of its own, charged to the quota before it is written, never the whole file in memory — and kept
 * once per user and content (lib/db/tx/blobs.ts). Bytes are read back the same way, a chunk per read.
 */
import { createHash } from "node:crypto";
import { config } from "@/lib/config";
import { AppError, NotFoundError } from "@/lib/errors";
import { readableSize } from "@/lib/session/attachments";
import { getDb } from "./connection";
import type { Database } from "./database";
import { validateFilename } from "./tx/artifacts";
import { addChunk, beginBlob, blobChunk, CHUNK_BYTES, dropBlobPart, expiredBlobs, finishBlob } from "./tx/blobs";
import { insertUpload, removeUploads, requireUploads, type UploadRow } from "./tx/uploads";
import type { UploadInfo } from "./types";

const info = (row: UploadRow): UploadInfo => ({
  id: row.id,
  filename: row.filename,
  mime_type: row.mime_type,
  size: Number(row.size),
  sha256: row.sha256,
  created_at: new Date(Number(row.created_at)).toISOString(),
  expires_at: new Date(Number(row.expires_at)).toISOString(),
});

export class FileTooLargeError extends AppError {
  constructor(limit: number) {
    super(413, "payload_too_large", `A file may be at most ${readableSize(limit)}`);
  }
}

/** `source` in chunks of CHUNK_BYTES (the last one shorter). */
async function* chunked(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  onBytes: (piece: Uint8Array) => void,
): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let length = 0;
  for await (const piece of source) {
    onBytes(piece);
    pending.push(Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength));
    length += piece.byteLength;
    while (length >= CHUNK_BYTES) {
      const all = Buffer.concat(pending, length);
      yield all.subarray(0, CHUNK_BYTES);
      pending = [all.subarray(CHUNK_BYTES)];
      length -= CHUNK_BYTES;
    }
  }
  if (length > 0) yield Buffer.concat(pending, length);
}

/**
 * Stores an upload of the user's from `body`: refused (413, nothing kept) past RETRACE_MAX_UPLOAD_BYTES, and
 * (429, nothing kept) past the byte quota. The same bytes uploaded again by the same user end up stored once.
 */
export async function storeUpload(
  userId: string,
  body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  file: { filename: string; mimeType: string },
) {
  validateFilename(file.filename);
  const limit = config().limits.uploadBytes;
  const db = await getDb();
  const blobId = await db.write((tx) => beginBlob(tx, userId));
  const hash = createHash("sha256");
  let size = 0;
  try {
    let seq = 0;
    const pieces = chunked(body, (piece) => {
      size += piece.byteLength;
      if (size > limit) throw new FileTooLargeError(limit);
      hash.update(piece);
    });
    for await (const chunk of pieces) {
      const n = seq++;
      await db.write((tx) => addChunk(tx, userId, blobId, n, chunk));
    }
    const sha256 = hash.digest("hex");
    const upload = await db.write(async (tx) => insertUpload(tx, userId, await finishBlob(tx, userId, blobId, sha256), file));
    // Bytes the user had already: this copy goes, the upload names the blob they had.
    if (upload.blob_id !== blobId) await dropBlob(db, blobId);
    return info(upload);
  } catch (error) {
    // Should the removal fail too, the sweep removes the blob once its lease has passed.
    await dropBlob(db, blobId).catch((failed) => console.error("removing a failed upload:", failed));
    throw error;
  }
}

/** The user's upload (404 when it is not theirs or has expired), with the blob holding its bytes. */
export async function openUpload(userId: string, id: string): Promise<UploadInfo & { blobId: string }> {
  const db = await getDb();
  const [row] = await db.read((tx) => requireUploads(tx, userId, [id]));
  return { ...info(row), blobId: row.blob_id };
}

/**
 * A blob's bytes, a chunk per read. The caller found the blob through a read that checked who may see it (an
 * upload, a file version of a chat, a share link's file).
 */
export async function* readBlob(blobId: string): AsyncGenerator<Buffer> {
  const db = await getDb();
  for (let seq = 0; ; seq++) {
    const chunk = await db.read((tx) => blobChunk(tx, blobId, seq));
    if (!chunk) return;
    yield chunk;
  }
}

/** Removes the user's upload (404 when there is none); its blob goes too unless a message attached it. */
export async function removeUpload(userId: string, id: string): Promise<void> {
  const db = await getDb();
  const { removed, dying } = await db.write((tx) => removeUploads(tx, { userId, id }));
  if (removed === 0) throw new NotFoundError(`Upload not found: ${id}`);
  for (const blobId of dying) await dropBlob(db, blobId);
}

async function dropBlob(db: Database, blobId: string) {
  while (!(await db.write((tx) => dropBlobPart(tx, blobId)))) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * The sweep's part (lib/server.ts): removes expired uploads, then every blob given up or whose writer died, in
 * bounded parts, refunding their bytes. Resolves with how many blobs it removed.
 */
export async function reapBlobs(now = Date.now()): Promise<number> {
  const db = await getDb();
  while ((await db.write((tx) => removeUploads(tx, { expiredBefore: now }))).removed > 0);
  let removed = 0;
  for (let ids = await db.read((tx) => expiredBlobs(tx, now)); ids.length > 0; ids = await db.read((tx) => expiredBlobs(tx, now))) {
    for (const id of ids) await dropBlob(db, id);
    removed += ids.length;
  }
  return removed;
}
