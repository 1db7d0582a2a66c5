/** Versioned files: session-scoped by default, `user:` files shared by the user's chats of one agent. */
import { sql } from "drizzle-orm";
import { NotFoundError } from "@/lib/errors";
import { getDb } from "./client";
import { type ArtifactRow, artifactScope, insertVersion, userScope, validateFilename } from "./tx/artifacts";
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

export async function loadArtifact(userId: string, sessionId: string, filename: string, version?: number) {
  const db = await getDb();
  return db.read(async (tx) => {
    const row = await requireSession(tx, userId, sessionId);
    const found = await tx.one<ArtifactRow>(sql`
      SELECT version, mime_type, size, data, tombstone, restored_from FROM artifacts
      WHERE scope = ${artifactScope(row, filename)} AND filename = ${filename}
        ${version === undefined ? sql`` : sql`AND version = ${version}`}
      ORDER BY version DESC LIMIT 1`);
    if (!found || found.tombstone) throw new NotFoundError(`Artifact not found: ${filename}`);
    return { filename, version: found.version, mime_type: found.mime_type, data: Buffer.from(found.data) };
  });
}
