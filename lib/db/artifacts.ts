/** Versioned files: session-scoped by default, `user:` files shared by the user's chats of one agent. */
import { sql } from "drizzle-orm";
import { NotFoundError, ValidationError } from "@/lib/errors";
import type { ArtifactRestore } from "@/lib/session/rewind";
import { USER_PREFIX } from "@/lib/session/state";
import { fileBytes, ROW_BYTES } from "./bytes";
import { getDb } from "./client";
import { type Executor, inBatches, typedValues } from "./database";
import type { SessionRow } from "./rows";
import { requireSession } from "./sessions";
import { claimSession } from "./turns";
import type { ArtifactInfo } from "./types";
import { touchUser } from "./users";

/** Control, bidi-override and path characters would make a name misleading or unsafe to serve. */
const UNSAFE_IN_FILENAME = /[/\\\p{Cc}\p{Bidi_Control}]/u;

export function validateFilename(filename: string) {
  const bare = filename.startsWith(USER_PREFIX) ? filename.slice(USER_PREFIX.length) : filename;
  if (UNSAFE_IN_FILENAME.test(filename) || filename.length > 255 || bare === "." || bare === ".." || bare.trim() === "") {
    throw new ValidationError(`Invalid artifact filename: ${JSON.stringify(filename)}`);
  }
}

const userScope = (row: Pick<SessionRow, "user_id" | "agent">) => `user/${row.user_id}/${row.agent}`;

export function artifactScope(row: Pick<SessionRow, "id" | "user_id" | "agent">, filename: string) {
  return filename.startsWith(USER_PREFIX) ? userScope(row) : row.id;
}

interface ArtifactRow {
  version: number;
  mime_type: string;
  size: number;
  data: Buffer;
  tombstone: boolean | number;
  restored_from: number | null;
}

async function nextVersion(tx: Executor, scope: string, filename: string): Promise<number> {
  const found = await tx.one<{ v: number | null }>(
    sql`SELECT MAX(version) AS v FROM artifacts WHERE scope = ${scope} AND filename = ${filename}`,
  );
  return found?.v == null ? 0 : found.v + 1;
}

export async function insertVersion(
  tx: Executor,
  row: SessionRow,
  filename: string,
  file: Omit<ArtifactRow, "version" | "tombstone"> & { tombstone: boolean },
): Promise<number> {
  const scope = artifactScope(row, filename);
  const version = await nextVersion(tx, scope, filename);
  await tx.run(sql`
    INSERT INTO artifacts (scope, filename, version, session_id, user_id, mime_type, size, data, tombstone, restored_from, created_at)
    VALUES (${scope}, ${filename}, ${version}, ${scope === row.id ? row.id : null}, ${row.user_id}, ${file.mime_type}, ${file.size},
      ${file.data}, ${file.tombstone}, ${file.restored_from}, ${Date.now()})`);
  const bytes = fileBytes(filename, file.mime_type, file.size);
  await touchUser(tx, row.user_id, bytes);
  if (scope === row.id) await tx.run(sql`UPDATE sessions SET stored_bytes = stored_bytes + ${bytes} WHERE id = ${row.id}`);
  return version;
}

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

/**
 * Appends, for each session file of the plan, a copy of version `restore` (or a tombstone when null) as
 * its next version — one statement per batch of files. Returns each file's new version and the bytes
 * stored, which the caller counts (with the marker that records them).
 */
export async function restoreArtifacts(tx: Executor, row: SessionRow, plan: ArtifactRestore[]) {
  const versions = new Map<string, number>();
  let bytes = 0;
  for (const batch of inBatches(plan)) {
    const files = typedValues(
      batch.map(({ filename, restore }) => [filename, restore]),
      ["TEXT", "INTEGER"],
    );
    const created = await tx.all<{ filename: string; version: number; size: number; mime_type: string }>(sql`
      INSERT INTO artifacts (scope, filename, version, session_id, user_id, mime_type, size, data, tombstone, restored_from, created_at)
      WITH plan (filename, restore) AS (VALUES ${files})
      SELECT ${row.id}, p.filename,
        (SELECT COALESCE(MAX(b.version) + 1, 0) FROM artifacts b WHERE b.scope = ${row.id} AND b.filename = p.filename),
        ${row.id}, ${row.user_id}, COALESCE(a.mime_type, 'application/octet-stream'), COALESCE(a.size, 0),
        COALESCE(a.data, ${Buffer.alloc(0)}), COALESCE(a.tombstone, ${true}), COALESCE(a.restored_from, a.version), ${Date.now()}
      FROM plan p LEFT JOIN artifacts a ON a.scope = ${row.id} AND a.filename = p.filename AND a.version = p.restore
      RETURNING filename, version, size, mime_type`);
    for (const file of created) {
      versions.set(file.filename, Number(file.version));
      bytes += fileBytes(file.filename, file.mime_type, Number(file.size));
    }
  }
  return { versions, bytes };
}

/** Copies versions 0..v of each session file (v its version at the boundary; `null`: every version). Returns their bytes (`fileBytes`). */
export async function copyArtifacts(tx: Executor, from: string, to: string, versions: Map<string, number> | null): Promise<number> {
  const files = versions === null ? null : [...versions].filter(([filename]) => !filename.startsWith(USER_PREFIX));
  if (files?.length === 0) return 0;
  // One statement for every file: the versions to copy come in as a table of (filename, last version).
  const upTo = files === null ? sql`` : sql`WITH up_to (filename, version) AS (VALUES ${typedValues(files, ["TEXT", "INTEGER"])}) `;
  const wanted = files === null ? sql`` : sql`AND EXISTS (SELECT 1 FROM up_to u WHERE u.filename = a.filename AND a.version <= u.version)`;
  await tx.run(sql`
    INSERT INTO artifacts (scope, filename, version, session_id, user_id, mime_type, size, data, tombstone, restored_from, created_at)
    ${upTo}SELECT ${to}, a.filename, a.version, ${to}, a.user_id, a.mime_type, a.size, a.data, a.tombstone, a.restored_from, a.created_at
    FROM artifacts a WHERE a.scope = ${from} ${wanted}`);
  const total = await tx.one<{ bytes: number | null }>(sql`
    SELECT SUM(${ROW_BYTES} + ${tx.dialect.byteLength(sql`filename`)} + ${tx.dialect.byteLength(sql`mime_type`)} + size) AS bytes
    FROM artifacts WHERE scope = ${to}`);
  return Number(total?.bytes ?? 0);
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
