/**
 * What a user is charged for the quota (RETRACE_MAX_STORED_BYTES): the bytes of every row they cause,
 * counted when written. Each row also costs ROW_BYTES for what its text does not show (keys, numbers,
 * index entries, the derived ids a fork's copied rows get), so the charge never falls below the disk used.
 */
import { type SQL, sql } from "drizzle-orm";
import { MAX_CHAT_NAME } from "@/lib/session/names";
import type { Task } from "@/lib/task/types";
import type { Executor } from "../database";
import { inPieces, type Piece } from "./log";

export const ROW_BYTES = 100;
/** A chat's name: at most MAX_CHAT_NAME characters, charged at the most they can take in UTF-8. */
const NAME_BYTES = MAX_CHAT_NAME * 4;

const len = (text: string | null | undefined) => (text ? Buffer.byteLength(text) : 0);

export const eventBytes = (
  event: { id: string; invocation_id: string; author: string },
  data: string,
  stateDelta: string | null,
  artifactDelta: string | null,
) => ROW_BYTES + len(event.id) + len(event.invocation_id) + len(event.author) + len(data) + len(stateDelta) + len(artifactDelta);

export const invocationBytes = (invocationId: string, afterInvocationId: string | null) =>
  ROW_BYTES + len(invocationId) + len(afterInvocationId);

/** A name and pin on a turn (lib/db/labels.ts). */
export const labelBytes = (invocationId: string, label: string | null) => ROW_BYTES + len(invocationId) + len(label);

/** A task stored on its invocation: its id, what is kept of it, and the A2A message id that started it. */
export const taskBytes = (task: Task, stored: string, messageId?: string | null) => len(task.id) + len(stored) + len(messageId);

export const checkpointBytes = (state: string) => ROW_BYTES + len(state);

/** A chat's own row: its state twice (current and initial), its name, the pieces it reads. */
export const sessionBytes = (state: string, initialState: string, inherited: string | null) =>
  ROW_BYTES + NAME_BYTES + len(state) + len(initialState) + len(inherited);

export const fileBytes = (filename: string, mimeType: string, size: number) => ROW_BYTES + len(filename) + len(mimeType) + size;

/** A file version: its bytes, or for an attachment the hash of its blob (whose bytes the user is charged once, lib/db/tx/blobs.ts). */
export const versionBytes = (filename: string, mimeType: string, size: number, blobSha256: string | null) =>
  fileBytes(filename, mimeType, blobSha256 === null ? size : blobSha256.length);

/** `versionBytes` in SQL, over the artifacts table's columns. */
export const versionBytesSql = (tx: Executor) =>
  sql`${ROW_BYTES} + ${tx.dialect.byteLength(sql`filename`)} + ${tx.dialect.byteLength(sql`mime_type`)} + CASE WHEN blob_sha256 IS NULL THEN size ELSE ${tx.dialect.byteLength(sql`blob_sha256`)} END`;

/** What the rows of `pieces` are charged, as if copied: a fork is charged for what it reads of other chats. */
export async function piecesBytes(tx: Executor, pieces: Piece[]): Promise<number> {
  if (pieces.length === 0) return 0;
  const sum = (columns: string[]) =>
    sql.join([sql`${ROW_BYTES}`, ...columns.map((c) => sql`COALESCE(${tx.dialect.byteLength(sql.raw(c))}, 0)`)], sql` + `);
  const total = (table: string, columns: string[], seq: string): SQL =>
    sql`(SELECT COALESCE(SUM(${sum(columns)}), 0) FROM ${sql.raw(table)} WHERE ${inPieces(pieces, seq)})`;
  const row = await tx.one<{
    n: number;
  }>(sql`SELECT ${total("events", ["id", "invocation_id", "author", "data", "state_delta", "artifact_delta"], "seq")}
    + ${total("invocations", ["invocation_id", "after_invocation_id", "task_id", "task", "message_id"], "first_seq")}
    + ${total("state_checkpoints", ["state"], "seq")} AS n`);
  return Number(row?.n ?? 0);
}
