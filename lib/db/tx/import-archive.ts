/**
 * A chat of a Retrace archive (lib/archive/format.ts) as the steps of its import (lib/db/import-chat.ts): a new
 * chat with new ids where ids must be unique (the chat, its tasks), the bytes of its attachments (each checked
 * against its hash, and written only when the importer does not have them), its file versions as they were, then its raw
 * log through the store's own append (appendEventsTx: seqs, state, markers, the version tree, checkpoints), then
 * its tasks, then the names and pins of its turns (invocation ids are kept, so they name the same turns; an
 * archive from before labels has none). Every row is charged to the importer's byte quota as it is written, so
 * an archive that does not fit stops at the chat that crosses it, and that chat leaves nothing behind.
 */
import { createHash, type Hash, randomUUID } from "node:crypto";
import { type ArchiveBlob, type ArchiveSession, BLOB_CHUNK_BYTES, type ChatRecord } from "@/lib/archive/format";
import { ValidationError } from "@/lib/errors";
import { normalizeEvent } from "@/lib/session/normalize";
import { scopeOf } from "@/lib/session/state";
import type { AdkEvent, State } from "@/lib/session/types";
import type { SessionRow } from "../rows";
import { appendEventsTx } from "./append";
import { type ImportedChunk, importChunk } from "./blobs";
import { archiveRules, clean, freshRow, insertFile, insertLabel, insertTask, millis } from "./import";
import { beginImport, type ChatImport, finishImport, type ImportStep, STEP_BYTES, STEP_RECORDS } from "./import-lease";
import { charge } from "./users";

/** What the import of one archive shares between its chats. */
export interface ImportContext {
  /** Archive chat id → the new chat's id: a fork whose source came earlier in the archive keeps its lineage. */
  sources: Map<string, string>;
  /** The agent the chat gets: the archive's when this app has it. */
  agent(name: string): string;
}

const PHASES = { session: 0, blob: 1, file: 2, event: 3, task: 4, label: 5 } as const;

const sessionKeys = (state: State) => Object.fromEntries(Object.entries(state).filter(([key]) => scopeOf(key) === "session"));

const outOfPlace = (kind: string) =>
  new ValidationError(`A chat's records must come in order (session, blobs, files, events, tasks, labels); found a ${kind} out of place`);

/** A record after the session, as a step writes it: a task with the message id it keeps, a blob's chunk decoded. */
type Written =
  | Exclude<ChatRecord, { kind: "session" | "task" | "blob" }>
  | (Extract<ChatRecord, { kind: "task" }> & { messageId?: string })
  | { kind: "chunk"; value: ImportedChunk };

/** What a record costs a step: its file's or chunk's bytes, or its event's size as stored. */
const sizeOf = (record: Exclude<ChatRecord, { kind: "session" }>) =>
  record.kind === "file" || record.kind === "blob"
    ? (record.value.data_base64?.length ?? 100)
    : record.kind === "event"
      ? JSON.stringify(record.value).length
      : 100;

/** An archive's blob as its chunks come (checked outside any transaction, so a step that runs again sees the same). */
interface BlobInProgress {
  id: string;
  sha256: string;
  size: number;
  seen: number;
  next: number;
  hash: Hash;
}

/** A blob's chunk, checked: in order, full but for the last, adding up to its size and its hash. */
function blobChunk(blob: BlobInProgress | null, record: ArchiveBlob): { blob: BlobInProgress; chunk: ImportedChunk } {
  const data = Buffer.from(record.data_base64, "base64");
  const current =
    blob?.sha256 === record.sha256 && blob.seen < blob.size
      ? blob
      : { id: randomUUID(), sha256: record.sha256, size: record.size, seen: 0, next: 0, hash: createHash("sha256") };
  if (blob && current !== blob && blob.seen < blob.size)
    throw new ValidationError(`Blob ${blob.sha256}: its chunks stop at byte ${blob.seen} of ${blob.size}`);
  const last = current.seen + data.length >= current.size;
  if (
    record.seq !== current.next ||
    record.size !== current.size ||
    current.seen + data.length > current.size ||
    (!last && data.length !== BLOB_CHUNK_BYTES)
  ) {
    throw new ValidationError(
      `Blob ${record.sha256}: chunk ${record.seq} is not the next ${BLOB_CHUNK_BYTES}-byte part of its ${current.size} bytes`,
    );
  }
  current.hash.update(data);
  current.seen += data.length;
  current.next += 1;
  if (last && current.hash.digest("hex") !== current.sha256)
    throw new ValidationError(`Blob ${record.sha256}: its bytes do not match its sha256`);
  return { blob: current, chunk: { blobId: current.id, sha256: current.sha256, seq: record.seq, data, last } };
}

/**
 * The import of one archive chat, its records in archive order, the session first; `inputBytes` is what the
 * chat took of the upload (a small one is written in one transaction).
 */
export async function archiveChatImport(
  records: AsyncIterable<ChatRecord>,
  context: ImportContext,
  inputBytes: number,
): Promise<ChatImport> {
  const iterator = records[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done || first.value.kind !== "session")
    throw first.done ? new ValidationError("An archive chat has no session") : outOfPlace(first.value.kind);
  const session: ArchiveSession = first.value.value;
  const agent = context.agent(clean(session.agent, "An agent name"));
  const name = clean(session.name, "A chat name") || "Imported chat";
  return {
    whole: inputBytes <= STEP_BYTES,
    begin: (tx, userId) => beginImport(tx, userId, { agent, name, state: sessionKeys(session.initial_state) }),
    steps: steps(session, iterator),
    async finish(tx, row) {
      const source = session.forked_from_session_id ? (context.sources.get(session.forked_from_session_id) ?? null) : null;
      const done = await finishImport(tx, row, {
        named_by_user: session.named_by_user,
        created_at: millis(session.created_at),
        updated_at: millis(session.updated_at),
        forked_from_session_id: source,
        forked_before_invocation_id: source ? session.forked_before_invocation_id : null,
      });
      context.sources.set(session.id, done.id);
      return done;
    },
  };
}

/** The chat's records after its session, checked as they come and gathered into steps of STEP_BYTES and STEP_RECORDS. */
async function* steps(session: ArchiveSession, records: AsyncIterator<ChatRecord>): AsyncGenerator<ImportStep> {
  const rules = archiveRules();
  let phase = 0;
  let seq = 0;
  let part: Written[] = [];
  let size = 0;
  let blob: BlobInProgress | null = null;
  const blobEnded = () => {
    if (blob && blob.seen < blob.size)
      throw new ValidationError(`Blob ${blob.sha256}: its chunks stop at byte ${blob.seen} of ${blob.size}`);
  };
  for (let next = await records.next(); !next.done; next = await records.next()) {
    const record = next.value;
    if (record.kind === "session" || PHASES[record.kind] < phase) throw outOfPlace(record.kind);
    phase = PHASES[record.kind];
    if (record.kind !== "blob") blobEnded();
    if (record.kind === "blob") {
      const checked = blobChunk(blob, record.value);
      blob = checked.blob;
      part.push({ kind: "chunk", value: checked.chunk });
    } else if (record.kind === "event") {
      const { seq: given, id, invocation_id, author } = record.value;
      if (given !== ++seq) throw new ValidationError(`Chat ${session.id}: event seq ${given} where ${seq} was expected`);
      clean(id, "An event id");
      clean(invocation_id, "An invocation id");
      clean(author, "An author");
      part.push(record);
    } else if (record.kind === "file") {
      rules.file(record.value);
      part.push(record);
    } else if (record.kind === "task") part.push({ ...record, messageId: rules.task(record.value) });
    else {
      rules.label(record.value);
      part.push(record);
    }
    size += sizeOf(record);
    if (size >= STEP_BYTES || part.length >= STEP_RECORDS) {
      yield write(part);
      part = [];
      size = 0;
    }
  }
  blobEnded();
  if (part.length) yield write(part);
}

/** One step: its files, events (appended together), tasks and labels; tasks and labels are charged together. */
function write(records: Written[]): ImportStep {
  return async (tx, start) => {
    let row: SessionRow = start;
    let batch: AdkEvent[] = [];
    let bytes = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      await appendEventsTx(tx, row, batch, { imported: true });
      batch = [];
      row = await freshRow(tx, row.id);
    };
    for (const record of records) {
      if (record.kind === "chunk") await importChunk(tx, row.user_id, record.value);
      else if (record.kind === "file") await insertFile(tx, row, record.value);
      else if (record.kind === "event") {
        const { seq: _seq, ...event } = record.value;
        batch.push(normalizeEvent(event));
      } else {
        await flush();
        bytes +=
          record.kind === "task" ? await insertTask(tx, row, record.value, record.messageId) : await insertLabel(tx, row, record.value);
      }
    }
    await flush();
    await charge(tx, row, bytes);
  };
}
