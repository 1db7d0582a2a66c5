/**
 * Uploads inside the caller's transaction (docs/api.md, "Uploads"): a file a user uploaded, which names one of
 * their blobs (lib/db/tx/blobs.ts) and may be attached to their messages until it expires. Attaching does not use
 * it up; once expired (or removed) it is gone, and its blob with it unless a file version names the blob.
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { config } from "@/lib/config";
import { NotFoundError } from "@/lib/errors";
import type { Executor } from "../database";
import { type Blob, releaseBlobs, reserveBytes } from "./blobs";
import { ROW_BYTES } from "./bytes";

export interface UploadRow {
  id: string;
  user_id: string;
  blob_id: string;
  filename: string;
  mime_type: string;
  size: number;
  sha256: string;
  created_at: number;
  expires_at: number;
}

const uploadBytes = (row: Pick<UploadRow, "id" | "filename" | "mime_type" | "sha256">) =>
  ROW_BYTES + Buffer.byteLength(row.id) + Buffer.byteLength(row.filename) + Buffer.byteLength(row.mime_type) + row.sha256.length;

/** An upload of `blob` under a name and media type (checked by the caller), charged to the user. */
export async function insertUpload(tx: Executor, userId: string, blob: Blob, file: { filename: string; mimeType: string }) {
  const now = Date.now();
  const row: UploadRow = {
    id: randomUUID(),
    user_id: userId,
    blob_id: blob.id,
    filename: file.filename,
    mime_type: file.mimeType,
    size: blob.size,
    sha256: blob.sha256,
    created_at: now,
    expires_at: now + config().limits.uploadTtlMs,
  };
  await reserveBytes(tx, userId, uploadBytes(row));
  await tx.run(sql`
    INSERT INTO uploads (id, user_id, blob_id, filename, mime_type, size, sha256, created_at, expires_at)
    VALUES (${row.id}, ${userId}, ${blob.id}, ${row.filename}, ${row.mime_type}, ${row.size}, ${row.sha256}, ${now}, ${row.expires_at})`);
  return row;
}

/** The user's uploads `ids`, in that order: any that is not theirs, or has expired, is a 404. */
export async function requireUploads(tx: Executor, userId: string, ids: string[]): Promise<UploadRow[]> {
  if (ids.length === 0) return [];
  const rows = await tx.all<UploadRow>(sql`
    SELECT * FROM uploads WHERE user_id = ${userId} AND expires_at >= ${Date.now()} AND id IN (${tx.dialect.textList(ids)})`);
  const byId = new Map(rows.map((r) => [r.id, { ...r, size: Number(r.size) }]));
  return ids.map((id) => {
    const row = byId.get(id);
    if (!row) throw new NotFoundError(`Upload not found: ${id} (it expired, or is not yours)`);
    return row;
  });
}

/**
 * Removes uploads (the user's `id`, or up to 500 expired ones): their bytes refunded, their blobs given up when
 * nothing else names them. Resolves with how many went and the blobs that now die.
 */
export async function removeUploads(tx: Executor, which: { userId: string; id: string } | { expiredBefore: number }) {
  const gone = await tx.all<UploadRow>(
    "id" in which
      ? sql`DELETE FROM uploads WHERE id = ${which.id} AND user_id = ${which.userId} RETURNING *`
      : sql`DELETE FROM uploads WHERE id IN (SELECT id FROM uploads WHERE expires_at < ${which.expiredBefore} LIMIT 500) RETURNING *`,
  );
  const users = new Map<string, number>();
  for (const row of gone) users.set(row.user_id, (users.get(row.user_id) ?? 0) + uploadBytes(row));
  const dying: string[] = [];
  for (const [userId, bytes] of [...users].sort(([a], [b]) => (a < b ? -1 : 1))) {
    await tx.run(sql`UPDATE users SET stored_bytes = stored_bytes - ${bytes} WHERE id = ${userId}`);
    dying.push(...(await releaseBlobs(tx, userId)));
  }
  return { removed: gone.length, dying };
}
