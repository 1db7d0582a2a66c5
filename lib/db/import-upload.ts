/**
 * One import upload, whatever it holds (docs/api.md, "Export and import"): a Retrace archive (a JSON object),
 * a ChatGPT `conversations.json` or one of its shards (a JSON array), or ChatGPT's whole ZIP export. It is
 * read as it streams in and written chat by chat, each chat in short steps and hidden until its last
 * (lib/db/import-chat.ts), so memory stays bounded and other requests keep their turn whatever the size;
 * `onProgress` hears the bytes read and the chats written.
 */

import type { z } from "zod";
import { conversationToChat } from "@/lib/archive/chatgpt";
import {
  ARCHIVE_FORMAT,
  ARCHIVE_VERSION,
  archiveBlob,
  archiveEvent,
  archiveFile,
  archiveLabel,
  archiveSession,
  archiveTask,
  type ChatRecord,
  MAX_FILE_BASE64,
  SECTIONS,
} from "@/lib/archive/format";
import { jsonValues } from "@/lib/archive/json-stream";
import { Spool } from "@/lib/archive/spool";
import { openZipExport, spoolToFile } from "@/lib/archive/zip";
import { AppError, issuesText, ValidationError } from "@/lib/errors";
import { importChat } from "./import-chat";
import { archiveChatImport, type ImportContext } from "./tx/import-archive";
import { type AttachmentSource, conversationImport } from "./tx/import-chatgpt";
import type { SessionSummary } from "./types";

interface ImportProgress {
  /** Bytes of the upload read so far. */
  bytes: number;
  chats: number;
}

export interface ImportOptions {
  /** The agent imported ChatGPT conversations get, and Retrace chats whose agent this app does not have. */
  agent: string;
  agents: string[];
  onProgress?: (progress: ImportProgress) => void;
}

/** Thrown when a chat fails: what was imported before it stays, and the message says how many. */
class ImportError extends AppError {
  constructor(
    cause: AppError,
    readonly imported: SessionSummary[],
  ) {
    super(
      cause.status,
      cause.code,
      imported.length ? `${cause.message} (the ${imported.length} chats before it were imported)` : cause.message,
    );
  }
}

/** The first bytes, and the whole stream again. */
async function peek(source: AsyncIterable<Uint8Array>) {
  const iterator = source[Symbol.asyncIterator]();
  const first = await iterator.next();
  const head = first.done ? new Uint8Array() : first.value;
  async function* all() {
    if (!first.done) yield head;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { head, stream: all() };
}

function parsed<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(`${where}: ${issuesText(result.error)}`);
  return result.data;
}

/** What a wrong file is told, so its owner knows which file of an export to pick. */
const WHAT_IMPORTS =
  "Import takes a Retrace archive, ChatGPT's conversations.json (or its conversations-NNN.json shards) or ChatGPT's whole export ZIP.";

/** A JSON object that is not an archive (an archive starts with its `format`): perhaps the wrong file of an export. */
const notAnArchive = () =>
  new ValidationError(`This JSON is not a Retrace archive (it starts with "format": "${ARCHIVE_FORMAT}"). ${WHAT_IMPORTS}`);

const RECORD_SCHEMAS = {
  session: archiveSession,
  blob: archiveBlob,
  file: archiveFile,
  event: archiveEvent,
  task: archiveTask,
  label: archiveLabel,
};

export async function importUpload(userId: string, body: AsyncIterable<Uint8Array>, options: ImportOptions): Promise<SessionSummary[]> {
  const imported: SessionSummary[] = [];
  let bytes = 0;
  const report = () => options.onProgress?.({ bytes, chats: imported.length });
  const onBytes = (n: number) => {
    bytes = n;
    report();
  };
  const done = (chat: SessionSummary) => {
    imported.push(chat);
    report();
  };
  try {
    const { head, stream } = await peek(body);
    const first = Buffer.from(head)
      .toString("latin1")
      .replace(/^\xEF\xBB\xBF/, "")
      .trimStart()[0];
    if (head[0] === 0x50 && head[1] === 0x4b) await importZip(userId, stream, options, onBytes, done);
    else if (first === "{") await importArchive(userId, stream, options, onBytes, done);
    else if (first === "[") await importConversations(userId, stream, options, onBytes, {}, done);
    else throw new ValidationError(`This file is not JSON nor a ZIP. ${WHAT_IMPORTS}`);
    return imported;
  } catch (error) {
    if (error instanceof AppError) throw new ImportError(error, imported);
    throw error;
  }
}

async function importArchive(
  userId: string,
  stream: AsyncIterable<Uint8Array>,
  options: ImportOptions,
  onBytes: (n: number) => void,
  done: (chat: SessionSummary) => void,
) {
  const context: ImportContext = { sources: new Map(), agent: (name) => (options.agents.includes(name) ? name : options.agent) };
  const paths = ["$.format", "$.version", "$.chats.*.session", ...Object.keys(SECTIONS).map((s) => `$.chats.*.${s}.*`)];
  let read = 0;
  let format: unknown;
  // The chat being read: its records wait in a spool until its last one has arrived.
  const open: { chat: { index: number; spool: Spool<ChatRecord>; from: number } | null } = { chat: null };
  const finish = async () => {
    const chat = open.chat;
    if (!chat) return;
    try {
      done(await importChat(userId, await archiveChatImport(chat.spool.records(), context, read - chat.from)));
    } finally {
      await chat.spool.dispose();
    }
  };
  const onArchiveBytes = (n: number) => {
    read = n;
    onBytes(n);
  };
  try {
    for await (const { value, path } of jsonValues(stream, {
      paths,
      onBytes: onArchiveBytes,
      longer: { key: "data_base64", bytes: MAX_FILE_BASE64 },
    })) {
      if (path[0] === "format") format = value;
      else if (path[0] === "version") {
        if (typeof value !== "number" || value > ARCHIVE_VERSION)
          throw new ValidationError(`Archive version ${value} is newer than this app reads`);
      } else {
        if (format !== ARCHIVE_FORMAT) throw notAnArchive();
        const index = path[1] as number;
        if (open.chat?.index !== index) {
          await finish();
          open.chat = { index, spool: new Spool(), from: read };
        }
        const chat = open.chat;
        const kind = path[2] === "session" ? "session" : SECTIONS[path[2] as keyof typeof SECTIONS];
        const record = { kind, value: parsed(RECORD_SCHEMAS[kind], value, `Chat ${index + 1}, ${kind}`) } as ChatRecord;
        await chat.spool.add(record, read - chat.from);
      }
    }
    if (format !== ARCHIVE_FORMAT) throw notAnArchive();
    await finish();
  } finally {
    await open.chat?.spool.dispose();
  }
}

async function importConversations(
  userId: string,
  stream: AsyncIterable<Uint8Array>,
  options: ImportOptions,
  onBytes: (n: number) => void,
  source: { attachments?: AttachmentSource },
  done: (chat: SessionSummary) => void,
) {
  // Errors name the conversation: the one being written, or the one whose bytes broke a rule before it was whole.
  let at = 0;
  let title: unknown;
  try {
    for await (const { value, path } of jsonValues(stream, { paths: ["$.*"], onBytes })) {
      at = Number(path[0]);
      title = (value as { title?: unknown } | null)?.title;
      const chat = conversationToChat(value, options.agent);
      if (chat.ops.length > 0)
        done(await importChat(userId, conversationImport(chat, options.agent, source.attachments ?? (async () => null))));
      at += 1;
      title = undefined;
    }
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const named = typeof title === "string" && title.trim() ? ` (“${title.trim().slice(0, 200)}”)` : "";
    throw new AppError(error.status, error.code, `Conversation ${at + 1}${named}: ${error.message}`);
  }
}

async function importZip(
  userId: string,
  stream: AsyncIterable<Uint8Array>,
  options: ImportOptions,
  onBytes: (n: number) => void,
  done: (chat: SessionSummary) => void,
) {
  const upload = await spoolToFile(stream, onBytes);
  try {
    const zip = await openZipExport(upload.file);
    try {
      for (const entry of zip.conversations) {
        await importConversations(userId, zip.read(entry), options, () => undefined, { attachments: zip.attachment }, done);
      }
    } finally {
      await zip.close();
    }
  } finally {
    await upload.remove();
  }
}
