/** An archive chat's rows written inside the import's transaction: its files, its tasks, its labels, the bytes they cost. */
import { createHash, randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { ArchiveFile, ArchiveLabel, ArchiveTask } from "@/lib/archive/format";
import { ValidationError } from "@/lib/errors";
import { USER_PREFIX } from "@/lib/session/state";
import { isCleanText } from "@/lib/session/text";
import type { Task } from "@/lib/task/types";
import type { Executor } from "../database";
import { parseJson, type SessionRow } from "../rows";
import { validateFilename } from "./artifacts";
import { blobOf } from "./blobs";
import { labelBytes, versionBytes } from "./bytes";
import { invocationNode } from "./layout";
import { inPieces, logOf, piecesIn } from "./log";
import type { SharedVersion } from "./shares";
import { copiedStatus, storeTaskTx, taskColumns } from "./tasks";
import { charge } from "./users";

export function clean(text: string, what: string): string {
  if (!isCleanText(text)) throw new ValidationError(`${what} contains a NUL character or an unpaired surrogate`);
  return text;
}

/** The session's row as it is now (after an append, a rewind). */
export async function freshRow(tx: Executor, id: string): Promise<SessionRow> {
  return (await tx.one<SessionRow>(sql`SELECT * FROM sessions WHERE id = ${id}`)) as SessionRow;
}

/**
 * What an archive chat's records must agree on, checked as they come in (outside any transaction, so a step that
 * runs again sees the same): versions of a file name 0, 1, 2…, a message id on one task only, a turn labelled once.
 */
export function archiveRules() {
  const versions = new Map<string, number>();
  const messageIds = new Set<string>();
  const labelled = new Set<string>();
  return {
    file(file: ArchiveFile) {
      validateFilename(clean(file.filename, "A file name"));
      if (file.filename.startsWith(USER_PREFIX)) throw new ValidationError(`${file.filename}: user: files belong to a user, not a chat`);
      const expected = versions.get(file.filename) ?? 0;
      if (file.version !== expected) throw new ValidationError(`${file.filename}: version ${file.version} where ${expected} was expected`);
      versions.set(file.filename, expected + 1);
      if (file.restored_from !== null && file.restored_from >= file.version) {
        throw new ValidationError(`${file.filename} v${file.version}: restored_from must name an earlier version`);
      }
      clean(file.mime_type, "A media type");
    },
    /** The task's message id, unless an earlier task had it: a repeated one is dropped. */
    task(record: ArchiveTask): string | undefined {
      const messageId = record.message_id && !messageIds.has(record.message_id) ? clean(record.message_id, "A message id") : undefined;
      if (messageId) messageIds.add(messageId);
      return messageId;
    },
    label(record: ArchiveLabel) {
      clean(record.invocation_id, "An invocation id");
      if (record.label !== null) clean(record.label, "A version name");
      if (labelled.has(record.invocation_id)) throw new ValidationError(`Turn ${record.invocation_id} is labelled twice`);
      labelled.add(record.invocation_id);
    },
  };
}

/**
 * A file version as archived (`archiveRules` passed), its bytes matching its hash; an attachment's (no
 * `data_base64`) naming the importer's blob with that hash, which the archive brought before it.
 */
export async function insertFile(tx: Executor, row: SessionRow, file: ArchiveFile) {
  const blob = file.data_base64 === undefined ? await blobOf(tx, row.user_id, file.sha256) : undefined;
  if (file.data_base64 === undefined && !blob) {
    throw new ValidationError(`${file.filename} v${file.version}: the archive holds no bytes with its sha256 before it`);
  }
  const data = Buffer.from(file.data_base64 ?? "", "base64");
  if (!blob && createHash("sha256").update(data).digest("hex") !== file.sha256) {
    throw new ValidationError(`${file.filename} v${file.version}: its bytes do not match its sha256`);
  }
  const created = millis(file.created_at);
  const size = blob ? blob.size : data.length;
  const sha256 = blob ? blob.sha256 : null;
  await tx.run(sql`
    INSERT INTO artifacts (scope, filename, version, session_id, user_id, mime_type, size, data, tombstone, restored_from, created_at, blob_sha256)
    VALUES (${row.id}, ${file.filename}, ${file.version}, ${row.id}, ${row.user_id}, ${file.mime_type},
      ${size}, ${data}, ${file.tombstone}, ${file.restored_from}, ${created}, ${sha256})`);
  await charge(tx, row, versionBytes(file.filename, file.mime_type, size, sha256));
}

/** A task under a new id (task ids are unique across chats), on its invocation, with `messageId` (`archiveRules`). Resolves with its bytes. */
export async function insertTask(tx: Executor, row: SessionRow, record: ArchiveTask, messageId: string | undefined) {
  const id = randomUUID();
  const task: Task = {
    ...(record.task as Omit<Task, "kind" | "id" | "contextId">),
    status: copiedStatus((record.task as Pick<Task, "status">).status),
    kind: "task",
    id,
    contextId: row.id,
    metadata: { ...record.task.metadata, kagent_invocation_id: record.invocation_id },
  };
  await storeTaskTx(tx, row, task, messageId);
  return taskColumns(task, messageId).bytes;
}

export const millis = (iso: string) => {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : Date.now();
};

/** The tasks of the copied turns, under new ids. */
export async function copyTasks(tx: Executor, row: SessionRow, shared: SharedVersion, invocations: Set<string>) {
  const log = logOf(shared.source);
  const stored = await tx.all<{ invocation_id: string; task: string }>(sql`
    SELECT invocation_id, task FROM invocations
    WHERE ${inPieces(piecesIn(log, [1, shared.upToSeq]), "first_seq")} AND task IS NOT NULL AND NOT is_marker`);
  let bytes = 0;
  for (const { invocation_id, task } of stored) {
    if (!invocations.has(invocation_id)) continue;
    const { status } = parseJson<Pick<Task, "status">>(task);
    const copy: Task = {
      kind: "task",
      id: randomUUID(),
      contextId: row.id,
      status: copiedStatus({ state: status.state, timestamp: status.timestamp }),
      // Only what a turn's task carries: metadata a client stored on it is not the link's to give.
      metadata: { kagent_invocation_id: invocation_id, kagent_agent: shared.agent },
    };
    await storeTaskTx(tx, row, copy);
    bytes += taskColumns(copy).bytes;
  }
  await charge(tx, row, bytes);
}

/** A name or pin on one of the chat's turns (`archiveRules` passed), as the API would store it (tx/labels.ts). Resolves with its bytes. */
export async function insertLabel(tx: Executor, row: SessionRow, record: ArchiveLabel) {
  const node = await invocationNode(tx, logOf(row), record.invocation_id);
  if (!node || node.isMarker) throw new ValidationError(`A label names turn ${record.invocation_id}, which the chat does not have`);
  await tx.run(sql`
    INSERT INTO version_labels (session_id, invocation_id, label, pinned, updated_at)
    VALUES (${row.id}, ${record.invocation_id}, ${record.label}, ${record.pinned}, ${Date.now()})`);
  return labelBytes(record.invocation_id, record.label);
}
