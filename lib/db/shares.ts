/**
 * Share links (docs/api.md, "Share links"): a read-only link to one version of a chat. The link fixes the
 * chat's log up to its last seq when shared — the log is append-only, so the effective history of that
 * prefix is that version forever, whatever the chat does next. Only the token's hash is stored; revoking
 * deletes the row, and every view reads the database, so a revoked link is gone on every instance at once.
 */

import { randomBytes, randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { NotFoundError } from "@/lib/errors";
import { getDb } from "./connection";
import { blobOf } from "./tx/blobs";
import { ROW_BYTES } from "./tx/bytes";
import { claimSession } from "./tx/claim";
import { requireSession } from "./tx/sessions";
import { hashOf, readShared, type SharedVersion, type ShareRow } from "./tx/shares";
import { charge, chargeInBatch } from "./tx/users";
import type { ShareInfo } from "./types";

const shareBytes = (row: { id: string; token_hash: string; name: string }) =>
  ROW_BYTES + Buffer.byteLength(row.id) + Buffer.byteLength(row.token_hash) + Buffer.byteLength(row.name);

const info = (r: ShareRow): ShareInfo => ({
  id: r.id,
  created_at: new Date(Number(r.created_at)).toISOString(),
  include_tools: Boolean(r.include_tools),
  include_files: Boolean(r.include_files),
});

/** A link to the chat as it is now; resolves with the token, shown once (only its hash is kept). */
export async function createShare(userId: string, sessionId: string, opts: { includeTools: boolean; includeFiles: boolean }) {
  const db = await getDb();
  return db.write(async (tx) => {
    // Not while a turn runs: its events would still be coming into the version being shared.
    const row = await claimSession(tx, userId, sessionId);
    const token = randomBytes(32).toString("base64url");
    const id = randomUUID();
    const hash = hashOf(token);
    const created = await tx.one<ShareRow>(sql`
      INSERT INTO share_links (id, token_hash, session_id, name, up_to_seq, include_tools, include_files, created_at)
      VALUES (${id}, ${hash}, ${row.id}, ${row.name}, ${row.last_seq}, ${opts.includeTools}, ${opts.includeFiles}, ${Date.now()})
      RETURNING id, session_id, name, up_to_seq, include_tools, include_files, created_at`);
    await charge(tx, row, shareBytes({ id, token_hash: hash, name: row.name }));
    return { share: info(created as ShareRow), token };
  });
}

export async function listShares(userId: string, sessionId: string): Promise<ShareInfo[]> {
  const db = await getDb();
  return db.read(async (tx) => {
    await requireSession(tx, userId, sessionId);
    const rows = await tx.all<ShareRow>(sql`SELECT * FROM share_links WHERE session_id = ${sessionId} ORDER BY created_at DESC, id`);
    return rows.map(info);
  });
}

/** Revokes a link of the user's chat: from this commit on, it is a 404 everywhere. */
export async function revokeShare(userId: string, sessionId: string, shareId: string): Promise<void> {
  const db = await getDb();
  await db.write(async (tx) => {
    const row = await requireSession(tx, userId, sessionId, true);
    const gone = await tx.all<{ id: string; token_hash: string; name: string }>(sql`
      DELETE FROM share_links WHERE id = ${shareId} AND session_id = ${row.id} RETURNING id, token_hash, name`);
    if (gone.length === 0) throw new NotFoundError("Share link not found");
    await tx.batch(chargeInBatch(row, -shareBytes(gone[0])));
  });
}

export async function sharedVersion(token: string): Promise<SharedVersion | null> {
  const db = await getDb();
  return db.read((tx) => readShared(tx, token));
}

/**
 * A file of a link's version (404 unless the link shares files and that version is in it): the version it has
 * there, or `version`, one its messages attached.
 */
export async function sharedFile(token: string, filename: string, version?: number) {
  const db = await getDb();
  return db.read(async (tx) => {
    const shared = await readShared(tx, token);
    const wanted = version ?? shared?.files.get(filename);
    const shown = version === undefined || shared?.attachments.has(`${version}/${filename}`);
    if (!shared || wanted === undefined || !shown) throw new NotFoundError("File not found");
    const file = await tx.one<{ mime_type: string; size: number; data: Buffer; blob_sha256: string | null }>(sql`
      SELECT mime_type, size, data, blob_sha256 FROM artifacts WHERE scope = ${shared.source.id} AND filename = ${filename} AND version = ${wanted}`);
    const blob = file?.blob_sha256 ? await blobOf(tx, shared.source.user_id, file.blob_sha256) : undefined;
    if (!file || (file.blob_sha256 && !blob)) throw new NotFoundError("File not found");
    return { mime_type: file.mime_type, size: Number(file.size), data: Buffer.from(file.data), blob };
  });
}
