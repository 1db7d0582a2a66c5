/**
 * A chat of a Retrace archive (lib/archive/format.ts) as the steps of its import (lib/db/import-chat.ts): a new
 * chat with new ids where ids must be unique (the chat, its tasks), its file versions as they were, then its raw
 * log through the store's own append (appendEventsTx: seqs, state, markers, the version tree, checkpoints), then
 * its tasks, then the names and pins of its turns (invocation ids are kept, so they name the same turns; an
 * archive from before labels has none). Every row is charged to the importer's byte quota as it is written, so
 * an archive that does not fit stops at the chat that crosses it, and that chat leaves nothing behind.
 */
import type { ArchiveSession, ChatRecord } from "@/lib/archive/format";
import { ValidationError } from "@/lib/errors";
import { normalizeEvent } from "@/lib/session/normalize";
import { scopeOf } from "@/lib/session/state";
import type { AdkEvent, State } from "@/lib/session/types";
import type { SessionRow } from "../rows";
import { appendEventsTx } from "./append";
import { archiveRules, charge, clean, freshRow, insertFile, insertLabel, insertTask, millis } from "./import";
import { beginImport, type ChatImport, finishImport, type ImportStep, STEP_BYTES, STEP_RECORDS } from "./import-lease";

/** What the import of one archive shares between its chats. */
export interface ImportContext {
  /** Archive chat id → the new chat's id: a fork whose source came earlier in the archive keeps its lineage. */
  sources: Map<string, string>;
  /** The agent the chat gets: the archive's when this app has it. */
  agent(name: string): string;
}

const PHASES = { session: 0, file: 1, event: 2, task: 3, label: 4 } as const;

const sessionKeys = (state: State) => Object.fromEntries(Object.entries(state).filter(([key]) => scopeOf(key) === "session"));

const outOfPlace = (kind: string) =>
  new ValidationError(`A chat's records must come in order (session, files, events, tasks, labels); found a ${kind} out of place`);

/** A record after the session, as a step writes it: a task with the message id it keeps. */
type Written = Exclude<ChatRecord, { kind: "session" | "task" }> | (Extract<ChatRecord, { kind: "task" }> & { messageId?: string });

/** What a record costs a step: its file's bytes, or its event's size as stored. */
const sizeOf = (record: Exclude<ChatRecord, { kind: "session" }>) =>
  record.kind === "file" ? record.value.data_base64.length : record.kind === "event" ? JSON.stringify(record.value).length : 100;

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
  for (let next = await records.next(); !next.done; next = await records.next()) {
    const record = next.value;
    if (record.kind === "session" || PHASES[record.kind] < phase) throw outOfPlace(record.kind);
    phase = PHASES[record.kind];
    if (record.kind === "event") {
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
      if (record.kind === "file") await insertFile(tx, row, record.value);
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
