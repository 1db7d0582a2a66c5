/** File versions inside a transaction: names, scopes, new versions, and what a rewind or fork brings along. */
import { sql } from "drizzle-orm";
import { ValidationError } from "@/lib/errors";
import type { ArtifactRestore } from "@/lib/session/rewind";
import { USER_PREFIX } from "@/lib/session/state";
import { type Executor, inBatches, typedValues } from "../database";
import type { SessionRow } from "../rows";
import { versionBytes, versionBytesSql } from "./bytes";
import { touchUser } from "./users";

/** Control, bidi-override and path characters would make a name misleading or unsafe to serve. */
const UNSAFE_IN_FILENAME = /[/\\\p{Cc}\p{Bidi_Control}]/u;

export function validateFilename(filename: string) {
  const bare = filename.startsWith(USER_PREFIX) ? filename.slice(USER_PREFIX.length) : filename;
  if (UNSAFE_IN_FILENAME.test(filename) || filename.length > 255 || bare === "." || bare === ".." || bare.trim() === "") {
    throw new ValidationError(`Invalid artifact filename: ${JSON.stringify(filename)}`);
  }
}

export const userScope = (row: Pick<SessionRow, "user_id" | "agent">) => `user/${row.user_id}/${row.agent}`;

export function artifactScope(row: Pick<SessionRow, "id" | "user_id" | "agent">, filename: string) {
  return filename.startsWith(USER_PREFIX) ? userScope(row) : row.id;
}

export interface ArtifactRow {
  version: number;
  mime_type: string;
  size: number;
  data: Buffer;
  tombstone: boolean | number;
  restored_from: number | null;
  /** An attachment's: its bytes are its owner's blob with this hash, and `data` is empty. */
  blob_sha256: string | null;
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
  file: Omit<ArtifactRow, "version" | "tombstone" | "blob_sha256"> & { tombstone: boolean; blob_sha256?: string | null },
): Promise<number> {
  const scope = artifactScope(row, filename);
  const version = await nextVersion(tx, scope, filename);
  const blob = file.blob_sha256 ?? null;
  await tx.run(sql`
    INSERT INTO artifacts (scope, filename, version, session_id, user_id, mime_type, size, data, tombstone, restored_from, created_at, blob_sha256)
    VALUES (${scope}, ${filename}, ${version}, ${scope === row.id ? row.id : null}, ${row.user_id}, ${file.mime_type}, ${file.size},
      ${file.data}, ${file.tombstone}, ${file.restored_from}, ${Date.now()}, ${blob})`);
  const bytes = versionBytes(filename, file.mime_type, file.size, blob);
  await touchUser(tx, row.user_id, bytes);
  if (scope === row.id) await tx.run(sql`UPDATE sessions SET stored_bytes = stored_bytes + ${bytes} WHERE id = ${row.id}`);
  return version;
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
    const created = await tx.all<{ filename: string; version: number; size: number; mime_type: string; blob_sha256: string | null }>(sql`
      INSERT INTO artifacts (scope, filename, version, session_id, user_id, mime_type, size, data, tombstone, restored_from, created_at, blob_sha256)
      WITH plan (filename, restore) AS (VALUES ${files})
      SELECT ${row.id}, p.filename,
        (SELECT COALESCE(MAX(b.version) + 1, 0) FROM artifacts b WHERE b.scope = ${row.id} AND b.filename = p.filename),
        ${row.id}, ${row.user_id}, COALESCE(a.mime_type, 'application/octet-stream'), COALESCE(a.size, 0),
        COALESCE(a.data, ${Buffer.alloc(0)}), COALESCE(a.tombstone, ${true}), COALESCE(a.restored_from, a.version), ${Date.now()}, a.blob_sha256
      FROM plan p LEFT JOIN artifacts a ON a.scope = ${row.id} AND a.filename = p.filename AND a.version = p.restore
      RETURNING filename, version, size, mime_type, blob_sha256`);
    for (const file of created) {
      versions.set(file.filename, Number(file.version));
      bytes += versionBytes(file.filename, file.mime_type, Number(file.size), file.blob_sha256);
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
    INSERT INTO artifacts (scope, filename, version, session_id, user_id, mime_type, size, data, tombstone, restored_from, created_at, blob_sha256)
    ${upTo}SELECT ${to}, a.filename, a.version, ${to}, a.user_id, a.mime_type, a.size, a.data, a.tombstone, a.restored_from, a.created_at,
      a.blob_sha256
    FROM artifacts a WHERE a.scope = ${from} ${wanted}`);
  // An attachment's copy names the same blob: a fork stores its bytes no second time.
  const total = await tx.one<{ bytes: number | null }>(sql`SELECT SUM(${versionBytesSql(tx)}) AS bytes FROM artifacts WHERE scope = ${to}`);
  return Number(total?.bytes ?? 0);
}
