/**
 * Attachment bytes inside the caller's transaction (docs/semantics.md, "Attachments"). A user's blob holds one
 * content once, whatever names it (file versions of any chat, uploads), in chunks of CHUNK_BYTES. It is written
 * chunk by chunk under a lease, each chunk charged to the quota before it is stored, and finished under its
 * hash — or dropped for the user's blob that already has that hash. A blob nothing names any more is given a
 * passed lease ("dying") and removed in bounded parts, its bytes refunded with its row (`dropBlobPart`).
 */
import { createHash, randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { BLOB_CHUNK_BYTES } from "@/lib/archive/format";
import { config } from "@/lib/config";
import { AppError, QuotaExceededError } from "@/lib/errors";
import type { Executor } from "../database";
import { ROW_BYTES } from "./bytes";
import { ensureUser, lockUser } from "./users";

/** A blob's chunks, the same in the store and in an archive. */
export const CHUNK_BYTES = BLOB_CHUNK_BYTES;
/** How long a blob being written is held past its last chunk: a writer that died leaves it to the sweep after this. */
const BLOB_LEASE_MS = 60_000;
/** Chunks a removal deletes per transaction (16 MB). */
const DROP_CHUNKS = 64;
const SHA256_BYTES = 64;

/** What a blob of `size` bytes is charged: its row and its chunk rows (every chunk but the last is full). */
const blobBytes = (size: number) => ROW_BYTES + SHA256_BYTES + size + Math.ceil(size / CHUNK_BYTES) * ROW_BYTES;

export interface Blob {
  id: string;
  sha256: string;
  size: number;
}

/** Adds `bytes` to the user's stored bytes, unless that would pass the quota: then nothing is written (429). */
export async function reserveBytes(tx: Executor, userId: string, bytes: number): Promise<void> {
  const limit = config().limits.storedBytes;
  const row = await tx.one(sql`
    UPDATE users SET stored_bytes = stored_bytes + ${bytes} WHERE id = ${userId} AND stored_bytes + ${bytes} <= ${limit} RETURNING id`);
  if (!row) throw new QuotaExceededError(`more than ${limit} bytes stored`);
}

/** A new blob of the user's to write chunks into (its row charged). */
export async function beginBlob(tx: Executor, userId: string, id: string = randomUUID()): Promise<string> {
  await tx.batch([ensureUser(userId)]);
  await reserveBytes(tx, userId, blobBytes(0));
  await tx.run(sql`
    INSERT INTO blobs (id, user_id, sha256, size, created_at, lease_until) VALUES (${id}, ${userId}, NULL, 0, ${Date.now()}, ${Date.now() + BLOB_LEASE_MS})`);
  return id;
}

/** Stores chunk `seq` of a blob being written (charged first); refused once the blob was given up. */
export async function addChunk(tx: Executor, userId: string, blobId: string, seq: number, data: Buffer): Promise<void> {
  const now = Date.now();
  const held = await tx.one(sql`
    UPDATE blobs SET size = size + ${data.length}, lease_until = ${now + BLOB_LEASE_MS}
    WHERE id = ${blobId} AND user_id = ${userId} AND sha256 IS NULL AND lease_until >= ${now} RETURNING id`);
  if (!held) throw new AppError(503, "unavailable", "The upload stalled too long and was given up: send the file again");
  await reserveBytes(tx, userId, data.length + ROW_BYTES);
  await tx.run(sql`INSERT INTO blob_chunks (blob_id, seq, data) VALUES (${blobId}, ${seq}, ${data})`);
}

/** A chunk of an archive's blob (its hash checked by the caller once all its chunks came), under the id the import gave it. */
export interface ImportedChunk {
  blobId: string;
  sha256: string;
  seq: number;
  data: Buffer;
  last: boolean;
}

/**
 * Writes an imported blob's chunk: its first begins the blob unless the user has those bytes already (then none
 * of its chunks is written), its last finishes it.
 */
export async function importChunk(tx: Executor, userId: string, chunk: ImportedChunk): Promise<void> {
  if (chunk.seq === 0) {
    if (await blobOf(tx, userId, chunk.sha256)) return;
    await beginBlob(tx, userId, chunk.blobId);
  } else if (!(await tx.one(sql`SELECT id FROM blobs WHERE id = ${chunk.blobId} AND sha256 IS NULL`))) return;
  if (chunk.data.length > 0) await addChunk(tx, userId, chunk.blobId, chunk.seq, chunk.data);
  if (chunk.last) await finishBlob(tx, userId, chunk.blobId, chunk.sha256);
}

/** The user's finished blob with this hash. */
export async function blobOf(tx: Executor, userId: string, sha256: string): Promise<Blob | undefined> {
  const row = await tx.one<Blob>(sql`SELECT id, sha256, size FROM blobs WHERE user_id = ${userId} AND sha256 = ${sha256}`);
  return row && { id: row.id, sha256: row.sha256, size: Number(row.size) };
}

/**
 * Finishes a written blob under its hash; when the user has that content already, the new copy dies and the
 * one they had is the blob: the same bytes are stored once.
 */
export async function finishBlob(tx: Executor, userId: string, blobId: string, sha256: string): Promise<Blob> {
  // Two uploads of the same bytes finishing at once: the second sees the first.
  await tx.batch([lockUser(tx.dialect, userId)]);
  const existing = await blobOf(tx, userId, sha256);
  if (existing) {
    await tx.run(sql`UPDATE blobs SET lease_until = 0 WHERE id = ${blobId}`);
    return existing;
  }
  const row = await tx.one<{ size: number }>(sql`
    UPDATE blobs SET sha256 = ${sha256}, lease_until = NULL WHERE id = ${blobId} AND user_id = ${userId} AND sha256 IS NULL RETURNING size`);
  if (!row) throw new AppError(503, "unavailable", "The upload stalled too long and was given up: send the file again");
  return { id: blobId, sha256, size: Number(row.size) };
}

/**
 * Gives up the user's finished blobs that no file version and no upload names any more: they are dying (no hash,
 * a passed lease), so nothing can name them again, and `dropBlobPart` removes them (the caller, or the sweep).
 * Resolves with their ids. Run by every write that may
 * leave a blob unnamed, in the same transaction.
 */
export async function releaseBlobs(tx: Executor, userId: string): Promise<string[]> {
  // After a send naming one commits, or before it reads the upload it names: never in between.
  await tx.batch([lockUser(tx.dialect, userId)]);
  const dying = await tx.all<{ id: string }>(sql`
    UPDATE blobs SET sha256 = NULL, lease_until = 0
    WHERE user_id = ${userId} AND sha256 IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM artifacts a WHERE a.user_id = blobs.user_id AND a.blob_sha256 = blobs.sha256)
      AND NOT EXISTS (SELECT 1 FROM uploads u WHERE u.blob_id = blobs.id)
    RETURNING id`);
  return dying.map((d) => d.id);
}

/** Blobs whose lease has passed: given up, or whose writer died. */
export async function expiredBlobs(tx: Executor, now = Date.now()): Promise<string[]> {
  const rows = await tx.all<{ id: string }>(sql`SELECT id FROM blobs WHERE lease_until < ${now} LIMIT 100`);
  return rows.map((r) => r.id);
}

/** Removes a bounded part of a dying or abandoned blob, then its row with its bytes refunded. Resolves true once it is gone. */
export async function dropBlobPart(tx: Executor, blobId: string): Promise<boolean> {
  // Its lease ends now: a writer still at it is refused its next chunk.
  const blob = await tx.one<{ user_id: string; size: number }>(sql`
    UPDATE blobs SET lease_until = 0 WHERE id = ${blobId} AND lease_until IS NOT NULL RETURNING user_id, size`);
  if (!blob) return true;
  const removed = await tx.run(sql`
    DELETE FROM blob_chunks WHERE blob_id = ${blobId}
      AND seq IN (SELECT seq FROM blob_chunks WHERE blob_id = ${blobId} ORDER BY seq DESC LIMIT ${DROP_CHUNKS})`);
  if (removed === DROP_CHUNKS) return false;
  await tx.run(sql`DELETE FROM blobs WHERE id = ${blobId}`);
  await tx.run(sql`UPDATE users SET stored_bytes = stored_bytes - ${blobBytes(Number(blob.size))} WHERE id = ${blob.user_id}`);
  return true;
}

/** Bytes already in memory (an imported attachment, at most a request's size) as the user's blob, in this transaction. */
export async function putBlob(tx: Executor, userId: string, data: Buffer): Promise<Blob> {
  const sha256 = createHash("sha256").update(data).digest("hex");
  const existing = await blobOf(tx, userId, sha256);
  if (existing) return existing;
  await reserveBytes(tx, userId, blobBytes(data.length));
  const id = randomUUID();
  await tx.run(sql`
    INSERT INTO blobs (id, user_id, sha256, size, created_at, lease_until) VALUES (${id}, ${userId}, ${sha256}, ${data.length}, ${Date.now()}, NULL)`);
  for (let seq = 0; seq * CHUNK_BYTES < data.length; seq++) {
    const chunk = data.subarray(seq * CHUNK_BYTES, (seq + 1) * CHUNK_BYTES);
    await tx.run(sql`INSERT INTO blob_chunks (blob_id, seq, data) VALUES (${id}, ${seq}, ${chunk})`);
  }
  return { id, sha256, size: data.length };
}

/** One chunk of a blob, or undefined past its end. */
export async function blobChunk(tx: Executor, blobId: string, seq: number): Promise<Buffer | undefined> {
  const row = await tx.one<{ data: Buffer }>(sql`SELECT data FROM blob_chunks WHERE blob_id = ${blobId} AND seq = ${seq}`);
  return row ? Buffer.from(row.data) : undefined;
}

/**
 * The content of one user's blob as another user's (a shared chat continued by its reader): their own copy,
 * charged to them, made in the database without passing through this process; nothing when they have it.
 */
export async function copyBlob(tx: Executor, from: Blob, toUserId: string): Promise<void> {
  if (await blobOf(tx, toUserId, from.sha256)) return;
  await reserveBytes(tx, toUserId, blobBytes(from.size));
  const id = randomUUID();
  await tx.run(sql`
    INSERT INTO blobs (id, user_id, sha256, size, created_at, lease_until) VALUES (${id}, ${toUserId}, ${from.sha256}, ${from.size}, ${Date.now()}, NULL)`);
  await tx.run(sql`INSERT INTO blob_chunks (blob_id, seq, data) SELECT ${id}, seq, data FROM blob_chunks WHERE blob_id = ${from.id}`);
}

/**
 * A guest's blobs and uploads become the account's (lib/db/accounts.ts): a content both have is kept once — the
 * guest's uploads of it name the account's blob, and the guest's copy dies (refunded when `dropBlobPart` removes it).
 */
export async function mergeBlobs(tx: Executor, guestId: string, accountId: string): Promise<void> {
  const twins = await tx.all<{ guest: string; account: string }>(sql`
    SELECT g.id AS guest, a.id AS account FROM blobs g JOIN blobs a ON a.user_id = ${accountId} AND a.sha256 = g.sha256
    WHERE g.user_id = ${guestId}`);
  for (const twin of twins) {
    await tx.run(sql`UPDATE uploads SET blob_id = ${twin.account} WHERE blob_id = ${twin.guest}`);
    await tx.run(sql`UPDATE blobs SET sha256 = NULL, lease_until = 0 WHERE id = ${twin.guest}`);
  }
  await tx.run(sql`UPDATE blobs SET user_id = ${accountId} WHERE user_id = ${guestId}`);
  await tx.run(sql`UPDATE uploads SET user_id = ${accountId} WHERE user_id = ${guestId}`);
}
