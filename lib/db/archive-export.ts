/**
 * Reading chats out for an archive (lib/archive/format.ts). A chat's header is read in one snapshot that
 * fixes its log (pieces and last seq); its attachments' bytes (a chunk per read), events, tasks and file bytes
 * then follow a page at a time, each page its own short read: the log below that seq never changes, and
 * no transaction stays open while a slow client downloads (on SQLite one would hold the only connection).
 */
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import type { ArchiveBlob, ArchiveFile, ArchiveLabel, ArchiveSession, ChatRecord } from "@/lib/archive/format";
import { parseState } from "@/lib/session/state";
import { getDb } from "./connection";
import type { SessionRow } from "./rows";
import { blobChunk, blobOf } from "./tx/blobs";
import { eventPage, taskPage } from "./tx/export";
import { liveOf, requireSession } from "./tx/sessions";

/** Events (and tasks) per read. */
const PAGE = 1000;

const iso = (ms: number) => new Date(Number(ms)).toISOString();

interface FileRow {
  filename: string;
  version: number;
  mime_type: string;
  tombstone: boolean | number;
  restored_from: number | null;
  created_at: number;
  blob_sha256: string | null;
}

/** The user's live chats in an order that puts every source before its forks (an import maps lineage as it goes). */
export async function exportOrder(userId: string): Promise<string[]> {
  const db = await getDb();
  const rows = await db.all<{ id: string; forked_from_session_id: string | null }>(sql`
    SELECT id, forked_from_session_id FROM sessions WHERE ${liveOf(userId)} ORDER BY created_at, id`);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const order: string[] = [];
  const placed = new Set<string>();
  for (const row of rows) {
    // Sources up the chain first (iteratively: a chain of forks may be thousands deep).
    const chain: string[] = [];
    for (let at: typeof row | undefined = row; at && !placed.has(at.id); at = byId.get(at.forked_from_session_id ?? "")) {
      chain.push(at.id);
      placed.add(at.id);
    }
    order.push(...chain.reverse());
  }
  return order;
}

function sessionOf(row: SessionRow, state: string): ArchiveSession {
  return {
    id: row.id,
    agent: row.agent,
    name: row.name,
    named_by_user: Boolean(row.named_by_user),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    initial_state: parseState(row.initial_state),
    state: parseState(state),
    last_seq: Number(row.last_seq),
    forked_from_session_id: row.forked_from_session_id,
    forked_before_invocation_id: row.forked_before_invocation_id,
  };
}

/** An attachment's bytes as an archive's blob records, a chunk per read; none when the blob is gone. */
async function* blobRecords(userId: string, sha256: string): AsyncGenerator<ChatRecord> {
  const db = await getDb();
  const blob = await db.read((tx) => blobOf(tx, userId, sha256));
  if (!blob) return;
  if (blob.size === 0) yield { kind: "blob", value: { sha256, size: 0, seq: 0, data_base64: "" } };
  for (let seq = 0; ; seq++) {
    const data = await db.read((tx) => blobChunk(tx, blob.id, seq));
    if (!data) return;
    const value: ArchiveBlob = { sha256, size: blob.size, seq, data_base64: data.toString("base64") };
    yield { kind: "blob", value };
  }
}

/**
 * Every record of the user's chat, in archive order; 404 when it is not theirs. `written` holds the hashes of
 * the attachments an earlier chat of the same archive brought: each content's bytes go once per archive.
 */
export async function* chatRecords(userId: string, sessionId: string, written = new Set<string>()): AsyncGenerator<ChatRecord> {
  const db = await getDb();
  const { row, files, labels } = await db.read(async (tx) => {
    const row = await requireSession(tx, userId, sessionId);
    const files = await tx.all<FileRow>(sql`
      SELECT filename, version, mime_type, tombstone, restored_from, created_at, blob_sha256 FROM artifacts
      WHERE scope = ${row.id} ORDER BY filename, version`);
    // The chat's own names and pins (a fork's are its own, not its source's), in the log's order of their turns.
    const labels = await tx.all<{ invocation_id: string; label: string | null; pinned: boolean | number }>(sql`
      SELECT invocation_id, label, pinned FROM version_labels WHERE session_id = ${row.id} ORDER BY invocation_id`);
    return { row, files, labels };
  });
  yield { kind: "session", value: sessionOf(row, row.state) };
  for (const { blob_sha256: sha256 } of files) {
    if (sha256 === null || written.has(sha256)) continue;
    written.add(sha256);
    yield* blobRecords(userId, sha256);
  }
  for (const file of files) yield { kind: "file", value: await fileRecord(row.id, file) };
  for (let from = 1; from <= row.last_seq; from += PAGE) {
    for (const event of await eventPage(db, row, from, Math.min(from + PAGE - 1, row.last_seq))) yield { kind: "event", value: event };
  }
  for (let from = 1; from <= row.last_seq; from += PAGE) {
    for (const task of await taskPage(db, row, from, Math.min(from + PAGE - 1, row.last_seq))) yield { kind: "task", value: task };
  }
  for (const l of labels) {
    const value: ArchiveLabel = { invocation_id: l.invocation_id, label: l.label, pinned: Boolean(l.pinned) };
    yield { kind: "label", value };
  }
}

async function fileRecord(sessionId: string, file: FileRow): Promise<ArchiveFile> {
  const base = {
    filename: file.filename,
    version: Number(file.version),
    mime_type: file.mime_type,
    tombstone: Boolean(file.tombstone),
    restored_from: file.restored_from === null ? null : Number(file.restored_from),
    created_at: iso(file.created_at),
  };
  // An attachment's bytes are its blob's, in the archive's blobs.
  if (file.blob_sha256 !== null) return { ...base, sha256: file.blob_sha256 };
  const db = await getDb();
  const found = await db.one<{ data: Buffer }>(sql`
    SELECT data FROM artifacts WHERE scope = ${sessionId} AND filename = ${file.filename} AND version = ${file.version}`);
  const data = Buffer.from(found?.data ?? Buffer.alloc(0));
  return {
    ...base,
    sha256: createHash("sha256").update(data).digest("hex"),
    data_base64: data.toString("base64"),
  };
}
