/** Versioned files: session-scoped by default, `user:` files shared by the user's chats of one agent. */
import { sql } from "drizzle-orm";
import { NotFoundError } from "@/lib/errors";
import { getDb } from "./connection";
import { type ArtifactRow, artifactScope, insertVersion, userScope, validateFilename } from "./tx/artifacts";
import { blobChunk, blobOf } from "./tx/blobs";
import { claimSession } from "./tx/claim";
import { requireSession } from "./tx/sessions";
import type { ArtifactInfo } from "./types";

export async function saveArtifact(
  userId: string,
  sessionId: string,
  input: { filename: string; mimeType: string; data: Buffer },
  opts: { turn?: string } = {},
): Promise<{ filename: string; version: number }> {
  validateFilename(input.filename);
  const db = await getDb();
  return db.write(async (tx) => {
    const row = await claimSession(tx, userId, sessionId, opts.turn);
    const file = { mime_type: input.mimeType, size: input.data.length, data: input.data, tombstone: false, restored_from: null };
    return { filename: input.filename, version: await insertVersion(tx, row, input.filename, file) };
  });
}

/** Current files of the session (and the user's `user:` files), tombstoned ones left out. */
export async function listArtifacts(userId: string, sessionId: string): Promise<ArtifactInfo[]> {
  const db = await getDb();
  return db.read(async (tx) => {
    const row = await requireSession(tx, userId, sessionId);
    const rows = await tx.all<ArtifactInfo & { tombstone: boolean | number }>(sql`
      SELECT a.filename, a.version, a.mime_type, a.size, a.tombstone, a.restored_from FROM artifacts a
      WHERE a.scope IN (${row.id}, ${userScope(row)})
        AND a.version = (SELECT MAX(b.version) FROM artifacts b WHERE b.scope = a.scope AND b.filename = a.filename)`);
    // Sorted here: the dialects' collations would order names differently.
    return rows
      .filter((r) => !r.tombstone)
      .sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0))
      .map((r) => ({ filename: r.filename, version: r.version, mime_type: r.mime_type, size: r.size, restored_from: r.restored_from }));
  });
}

/**
 * A version of a file (the latest when `version` is not given). An attachment's bytes are in its blob (`blob`,
 * read a chunk at a time with `readBlob`) and `data` is empty.
 */
export async function loadArtifact(userId: string, sessionId: string, filename: string, version?: number) {
  const db = await getDb();
  return db.read(async (tx) => {
    const row = await requireSession(tx, userId, sessionId);
    const found = await tx.one<ArtifactRow>(sql`
      SELECT version, mime_type, size, data, tombstone, restored_from, blob_sha256 FROM artifacts
      WHERE scope = ${artifactScope(row, filename)} AND filename = ${filename}
        ${version === undefined ? sql`` : sql`AND version = ${version}`}
      ORDER BY version DESC LIMIT 1`);
    if (!found || found.tombstone) throw new NotFoundError(`Artifact not found: ${filename}`);
    const blob = found.blob_sha256 === null ? undefined : await blobOf(tx, row.user_id, found.blob_sha256);
    if (found.blob_sha256 !== null && !blob) throw new NotFoundError(`Artifact not found: ${filename}`);
    return {
      filename,
      version: Number(found.version),
      mime_type: found.mime_type,
      size: Number(found.size),
      data: Buffer.from(found.data),
      blob,
    };
  });
}

/**
 * A file version's bytes whole, for an agent (a model's attachment, a tool): null when it has more than `limit`
 * bytes. An attachment's are read from its blob a chunk per read.
 */
export async function artifactBytes(userId: string, sessionId: string, filename: string, version: number, limit: number) {
  const file = await loadArtifact(userId, sessionId, filename, version);
  if (file.size > limit) return null;
  if (!file.blob) return file.data;
  const db = await getDb();
  const blobId = file.blob.id;
  const chunks: Buffer[] = [];
  for (let seq = 0; ; seq++) {
    const chunk = await db.read((tx) => blobChunk(tx, blobId, seq));
    if (!chunk) return Buffer.concat(chunks);
    chunks.push(chunk);
  }
}
