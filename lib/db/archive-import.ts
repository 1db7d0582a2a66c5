/**
 * Importing a chat of a Retrace archive (lib/archive/format.ts) for the importing user, in one transaction:
 * a new chat with new ids where ids must be unique (the chat, its tasks), its file versions as they were,
 * then its raw log through the store's own append (appendEventsTx: seqs, state, markers, the version tree,
 * checkpoints), then its tasks, then the names and pins of its turns (invocation ids are kept, so they name
 * the same turns; an archive from before labels has none). Every row is charged to the importer's byte quota as it is written, so an
 * archive that does not fit stops at the chat that crosses it, and that chat leaves nothing behind.
 */
import { createHash, randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Task } from "@/lib/a2a/types";
import type { ArchiveFile, ArchiveLabel, ArchiveSession, ArchiveTask, ChatRecord } from "@/lib/archive/format";
import { ValidationError } from "@/lib/errors";
import { normalizeEvent } from "@/lib/session/normalize";
import { scopeOf, USER_PREFIX } from "@/lib/session/state";
import { isCleanText } from "@/lib/session/text";
import type { AdkEvent, State } from "@/lib/session/types";
import { validateFilename } from "./artifacts";
import { fileBytes, labelBytes } from "./bytes";
import { getDb } from "./client";
import type { Executor } from "./database";
import { appendEventsTx } from "./events";
import { invocationNode } from "./layout";
import { logOf } from "./log";
import type { SessionRow } from "./rows";
import { summary } from "./rows";
import { createSessionTx } from "./sessions";
import { storeTaskTx, taskColumns } from "./tasks";
import type { SessionSummary } from "./types";
import { touchUser } from "./users";

/** What the import of one archive shares between its chats. */
export interface ImportContext {
  /** Archive chat id → the new chat's id: a fork whose source came earlier in the archive keeps its lineage. */
  sources: Map<string, string>;
  /** The agent the chat gets: the archive's when this app has it. */
  agent(name: string): string;
}

export function clean(text: string, what: string): string {
  if (!isCleanText(text)) throw new ValidationError(`${what} contains a NUL character or an unpaired surrogate`);
  return text;
}

/** The session's row as it is now (after an append, a rewind). */
export async function freshRow(tx: Executor, id: string): Promise<SessionRow> {
  return (await tx.one<SessionRow>(sql`SELECT * FROM sessions WHERE id = ${id}`)) as SessionRow;
}

/** Bytes written outside an append, charged to the chat and (quota-checked) its owner. */
export async function charge(tx: Executor, row: Pick<SessionRow, "id" | "user_id">, bytes: number) {
  if (bytes === 0) return;
  await touchUser(tx, row.user_id, bytes);
  await tx.run(sql`UPDATE sessions SET stored_bytes = stored_bytes + ${bytes} WHERE id = ${row.id}`);
}

/** Events per append: a batch's statements are built in memory, so an import keeps them small. */
const EVENTS_PER_APPEND = 250;

const PHASES = { session: 0, file: 1, event: 2, task: 3, label: 4 } as const;

const sessionKeys = (state: State) => Object.fromEntries(Object.entries(state).filter(([key]) => scopeOf(key) === "session"));

const millis = (iso: string) => {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : Date.now();
};

/** Imports one archive chat (its records in archive order) for `userId`; resolves with the new chat. */
export async function importArchiveChat(
  userId: string,
  records: AsyncIterable<ChatRecord>,
  context: ImportContext,
): Promise<SessionSummary> {
  const db = await getDb();
  const imported = await db.write(async (tx) => {
    let session: ArchiveSession | null = null;
    let row: SessionRow | null = null;
    let phase = 0;
    let seq = 0;
    let batch: AdkEvent[] = [];
    const versions = new Map<string, number>();
    const messageIds = new Set<string>();
    const labelled = new Set<string>();
    let taskBytes = 0;
    const flush = async () => {
      if (!row || batch.length === 0) return;
      await appendEventsTx(tx, row, batch, { imported: true });
      batch = [];
      row = await freshRow(tx, row.id);
    };
    for await (const record of records) {
      if (PHASES[record.kind] < phase || (record.kind === "session") !== (row === null)) {
        throw new ValidationError(
          `A chat's records must come in order (session, files, events, tasks, labels); found a ${record.kind} out of place`,
        );
      }
      phase = PHASES[record.kind];
      if (record.kind === "session") {
        session = record.value;
        row = await createSessionTx(tx, userId, {
          agent: context.agent(clean(session.agent, "An agent name")),
          name: clean(session.name, "A chat name") || "Imported chat",
          state: sessionKeys(session.initial_state),
        });
        continue;
      }
      const current = row as SessionRow;
      if (record.kind === "file") await insertFile(tx, current, record.value, versions);
      else if (record.kind === "event") {
        const { seq: given, ...event } = record.value;
        if (given !== ++seq) throw new ValidationError(`Chat ${session?.id}: event seq ${given} where ${seq} was expected`);
        for (const [value, what] of [
          [event.id, "An event id"],
          [event.invocation_id, "An invocation id"],
          [event.author, "An author"],
        ]) {
          clean(value, what);
        }
        batch.push(normalizeEvent(event));
        if (batch.length >= EVENTS_PER_APPEND) await flush();
      } else if (record.kind === "task") {
        await flush();
        taskBytes += await insertTask(tx, current, record.value, messageIds);
      } else {
        await flush();
        taskBytes += await insertLabel(tx, row as SessionRow, record.value, labelled);
      }
    }
    await flush();
    if (!row || !session) throw new ValidationError("An archive chat has no session");
    // Tasks and labels are small: charged together, once they are all in.
    await charge(tx, row, taskBytes);
    const source = session.forked_from_session_id ? (context.sources.get(session.forked_from_session_id) ?? null) : null;
    const done = await tx.one<SessionRow>(sql`
      UPDATE sessions SET name = ${(row as SessionRow).name}, named_by_user = ${session.named_by_user}, created_at = ${millis(session.created_at)},
        forked_from_session_id = ${source}, forked_before_invocation_id = ${source ? session.forked_before_invocation_id : null}
      WHERE id = ${(row as SessionRow).id} RETURNING *`);
    return { archiveId: session.id, row: done as SessionRow };
  });
  context.sources.set(imported.archiveId, imported.row.id);
  return summary(imported.row);
}

/** A file version as archived: versions of a name must come as 0, 1, 2…, their bytes matching their hash. */
async function insertFile(tx: Executor, row: SessionRow, file: ArchiveFile, versions: Map<string, number>) {
  validateFilename(clean(file.filename, "A file name"));
  if (file.filename.startsWith(USER_PREFIX)) throw new ValidationError(`${file.filename}: user: files belong to a user, not a chat`);
  const expected = versions.get(file.filename) ?? 0;
  if (file.version !== expected) throw new ValidationError(`${file.filename}: version ${file.version} where ${expected} was expected`);
  versions.set(file.filename, expected + 1);
  const data = Buffer.from(file.data_base64, "base64");
  if (createHash("sha256").update(data).digest("hex") !== file.sha256) {
    throw new ValidationError(`${file.filename} v${file.version}: its bytes do not match its sha256`);
  }
  if (file.restored_from !== null && file.restored_from >= file.version) {
    throw new ValidationError(`${file.filename} v${file.version}: restored_from must name an earlier version`);
  }
  const created = millis(file.created_at);
  await tx.run(sql`
    INSERT INTO artifacts (scope, filename, version, session_id, user_id, mime_type, size, data, tombstone, restored_from, created_at)
    VALUES (${row.id}, ${file.filename}, ${file.version}, ${row.id}, ${row.user_id}, ${clean(file.mime_type, "A media type")},
      ${data.length}, ${data}, ${file.tombstone}, ${file.restored_from}, ${created})`);
  await charge(tx, row, fileBytes(file.filename, file.mime_type, data.length));
}

/** A task under a new id (task ids are unique across chats), on its invocation; a repeated message id is dropped. Resolves with its bytes. */
async function insertTask(tx: Executor, row: SessionRow, record: ArchiveTask, messageIds: Set<string>) {
  const messageId = record.message_id && !messageIds.has(record.message_id) ? clean(record.message_id, "A message id") : undefined;
  if (messageId) messageIds.add(messageId);
  const id = randomUUID();
  const task: Task = {
    ...(record.task as Omit<Task, "kind" | "id" | "contextId">),
    kind: "task",
    id,
    contextId: row.id,
    metadata: { ...record.task.metadata, kagent_invocation_id: record.invocation_id },
  };
  await storeTaskTx(tx, row, task, messageId);
  return taskColumns(task, messageId).bytes;
}

/** A name or pin on one of the chat's turns, as the API would store it (lib/db/labels.ts). Resolves with its bytes. */
async function insertLabel(tx: Executor, row: SessionRow, record: ArchiveLabel, labelled: Set<string>) {
  const invocationId = clean(record.invocation_id, "An invocation id");
  const label = record.label === null ? null : clean(record.label, "A version name");
  if (labelled.has(invocationId)) throw new ValidationError(`Turn ${invocationId} is labelled twice`);
  labelled.add(invocationId);
  const node = await invocationNode(tx, logOf(row), invocationId);
  if (!node || node.isMarker) throw new ValidationError(`A label names turn ${invocationId}, which the chat does not have`);
  await tx.run(sql`
    INSERT INTO version_labels (session_id, invocation_id, label, pinned, updated_at)
    VALUES (${row.id}, ${invocationId}, ${label}, ${record.pinned}, ${Date.now()})`);
  return labelBytes(invocationId, label);
}
