/**
 * Share links (docs/api.md, "Share links"): a read-only link to one version of a chat. The link pins the
 * chat's log up to its last seq when shared — the log is append-only, so the effective history of that
 * prefix is that version forever, whatever the chat does next. Only the token's hash is stored; revoking
 * deletes the row, and every view reads the database, so a revoked link is gone on every instance at once.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { NotFoundError } from "@/lib/errors";
import { walkRewinds } from "@/lib/session/effective-history";
import { recordedVersions } from "@/lib/session/rewind";
import { USER_PREFIX } from "@/lib/session/state";
import type { AdkEvent, ArtifactDelta } from "@/lib/session/types";
import { charge } from "./archive-import";
import { ROW_BYTES } from "./bytes";
import { getDb } from "./client";
import type { Executor } from "./database";
import { toEvent } from "./history";
import { markerLinks } from "./layout";
import { eventIdIn, inPieces, logOf, piecesIn } from "./log";
import { parseJson, type SessionRow } from "./rows";
import { requireSession } from "./sessions";
import { claimSession } from "./turns";
import { chargeBytes } from "./users";

export interface ShareInfo {
  id: string;
  created_at: string;
  include_tools: boolean;
  include_files: boolean;
}

interface ShareRow {
  id: string;
  session_id: string;
  up_to_seq: number;
  include_tools: boolean | number;
  include_files: boolean | number;
  created_at: number;
}

const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");
const shareBytes = (id: string, hash: string) => ROW_BYTES + Buffer.byteLength(id) + Buffer.byteLength(hash);

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
      INSERT INTO share_links (id, token_hash, session_id, up_to_seq, include_tools, include_files, created_at)
      VALUES (${id}, ${hash}, ${row.id}, ${row.last_seq}, ${opts.includeTools}, ${opts.includeFiles}, ${Date.now()})
      RETURNING id, session_id, up_to_seq, include_tools, include_files, created_at`);
    await charge(tx, row, shareBytes(id, hash));
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
    const gone = await tx.all<{ id: string; token_hash: string }>(sql`
      DELETE FROM share_links WHERE id = ${shareId} AND session_id = ${row.id} RETURNING id, token_hash`);
    if (gone.length === 0) throw new NotFoundError("Share link not found");
    await chargeBytes(tx, row, -shareBytes(gone[0].id, gone[0].token_hash));
  });
}

/** What a link shows: the chat's name and the turns of that version, events in order, with what the sharer let in. */
export interface SharedVersion {
  name: string;
  agent: string;
  sharedAt: string;
  includeTools: boolean;
  includeFiles: boolean;
  events: AdkEvent[];
  /** The chat's session files in that version (when shared), newest version of each. */
  files: Map<string, number>;
  /** For "Continue from here": the source's row as pinned. */
  source: SessionRow;
  upToSeq: number;
}

/** The link's version; null when there is no such link (revoked, or its chat deleted). */
export async function readShared(tx: Executor, token: string): Promise<SharedVersion | null> {
  const link = await tx.one<ShareRow>(sql`SELECT * FROM share_links WHERE token_hash = ${hashOf(token)}`);
  const source = link && (await tx.one<SessionRow>(sql`SELECT * FROM sessions WHERE id = ${link.session_id} AND deleted_at IS NULL`));
  if (!link || !source) return null;
  const log = logOf(source);
  const upTo = Number(link.up_to_seq);
  const { segments } = walkRewinds(upTo, upTo === 0 ? [] : await markerLinks(tx, log, upTo));
  const rows = await tx.all<{ session_id: string; id: string; data: string }>(sql`
    SELECT session_id, id, data FROM events WHERE ${inPieces(segments.flatMap((s) => piecesIn(log, s)))} ORDER BY seq`);
  const events = rows.map((r) => toEvent({ id: eventIdIn(log, r.session_id, r.id), data: r.data }));
  const files = new Map<string, number>();
  if (link.include_files) {
    const deltas = await tx.all<{ delta: string }>(sql`
      SELECT artifact_delta AS delta FROM events
      WHERE ${inPieces(piecesIn(log, [1, upTo]))} AND artifact_delta IS NOT NULL ORDER BY seq`);
    for (const [filename, version] of recordedVersions(deltas.map((d) => parseJson<ArtifactDelta>(d.delta)))) {
      if (!filename.startsWith(USER_PREFIX)) files.set(filename, version);
    }
    // A tombstone (the file removed by a rewind) is no file.
    for (const [filename, version] of [...files]) {
      const found = await tx.one<{ tombstone: boolean | number }>(sql`
        SELECT tombstone FROM artifacts WHERE scope = ${source.id} AND filename = ${filename} AND version = ${version}`);
      if (!found || found.tombstone) files.delete(filename);
    }
  }
  return {
    name: source.name,
    agent: source.agent,
    sharedAt: new Date(Number(link.created_at)).toISOString(),
    includeTools: Boolean(link.include_tools),
    includeFiles: Boolean(link.include_files),
    events,
    files,
    source,
    upToSeq: upTo,
  };
}

export async function sharedVersion(token: string): Promise<SharedVersion | null> {
  const db = await getDb();
  return db.read((tx) => readShared(tx, token));
}

/** A file of a link's version (404 unless the link shares files and that version is in it). */
export async function sharedFile(token: string, filename: string) {
  const db = await getDb();
  return db.read(async (tx) => {
    const shared = await readShared(tx, token);
    const version = shared?.files.get(filename);
    if (!shared || version === undefined) throw new NotFoundError("File not found");
    const file = await tx.one<{ mime_type: string; data: Buffer }>(sql`
      SELECT mime_type, data FROM artifacts WHERE scope = ${shared.source.id} AND filename = ${filename} AND version = ${version}`);
    if (!file) throw new NotFoundError("File not found");
    return { mime_type: file.mime_type, data: Buffer.from(file.data) };
  });
}
