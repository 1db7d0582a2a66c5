/**
 * A converted ChatGPT conversation (lib/archive/chatgpt.ts) as the steps of its import (lib/db/import-chat.ts):
 * each turn through the store's append with its task, each branch switch through the real rewind (so state,
 * files and the version tree are exactly what sending and editing in Retrace would have made). An attachment the
 * upload holds is counted against the quota before its bytes are read, stored once, and named by every message
 * of the chat that attaches it.
 */
import { randomUUID } from "node:crypto";
import type { Attachment, ConvertedChat } from "@/lib/archive/chatgpt";
import type { FoundAttachment } from "@/lib/archive/zip";
import { attachmentPart } from "@/lib/session/attachments";
import { isMimeType } from "@/lib/session/mime";
import { USER_PREFIX } from "@/lib/session/state";
import type { AdkEvent, Part } from "@/lib/session/types";
import type { Task } from "@/lib/task/types";
import type { Executor } from "../database";
import type { SessionRow } from "../rows";
import { appendEventsTx } from "./append";
import { insertVersion, validateFilename } from "./artifacts";
import { type Blob, putBlob } from "./blobs";
import { fileBytes } from "./bytes";
import { clean, freshRow } from "./import";
import { beginImport, type ChatImport, finishImport, type ImportStep, STEP_BYTES, STEP_TURNS } from "./import-lease";
import { rewindTx } from "./rewind";
import { assertRoom } from "./users";

/** An attachment, when the upload holds it (a ZIP export does; a lone conversations.json does not). */
export type AttachmentSource = (attachment: Attachment) => Promise<FoundAttachment | null>;

const TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  json: "application/json",
};

/** A name the store accepts for a session file (never a `user:` one). */
function safeFilename(name: string): string {
  const bare = name
    .replace(/[/\\\p{Cc}\p{Bidi_Control}]/gu, "_")
    .replace(new RegExp(`^${USER_PREFIX}`), "")
    .trim()
    .slice(0, 200);
  const safe = bare === "." || bare === ".." || bare === "" ? "attachment" : bare;
  validateFilename(safe);
  return safe;
}

function mimeTypeOf(attachment: Attachment, filename: string): string {
  if (attachment.mimeType && isMimeType(attachment.mimeType)) return attachment.mimeType;
  return TYPES[filename.split(".").at(-1)?.toLowerCase() ?? ""] ?? "application/octet-stream";
}

type Turn = Extract<ConvertedChat["ops"][number], { kind: "turn" }>;
type Write = (tx: Executor, row: SessionRow) => Promise<unknown>;
/** An attachment stored in this chat: its name and type, and its version and blob once the step that stores it has run. */
type Saved = { filename: string; mimeType: string; version?: number; blob?: Blob };

/** What a rewind costs a step (it reads the chat's file deltas, and may copy files back). */
const REWIND_BYTES = 16 * 1024;

export function conversationImport(chat: ConvertedChat, agent: string, attachments: AttachmentSource): ChatImport {
  const sizes = chat.ops.map((op) => (op.kind === "turn" ? JSON.stringify(op.events).length : REWIND_BYTES));
  return {
    whole:
      sizes.reduce((a, b) => a + b, 0) <= STEP_BYTES &&
      chat.ops.length <= STEP_TURNS &&
      chat.ops.every((op) => op.kind === "rewind" || op.attachments.length === 0),
    begin: (tx, userId) => beginImport(tx, userId, { agent, name: clean(chat.name, "A conversation title") }),
    steps: steps(chat, sizes, agent, attachments),
    finish: (tx, row) => finishImport(tx, row, times(chat)),
  };
}

/** When the conversation began and when its last message was written (the export's seconds), as far as it says. */
function times(chat: ConvertedChat): { created_at?: number; updated_at?: number } {
  let last = 0;
  for (const op of chat.ops) if (op.kind === "turn") for (const event of op.events) last = Math.max(last, event.timestamp ?? 0);
  return {
    ...(chat.createdAt ? { created_at: Math.round(chat.createdAt * 1000) } : {}),
    ...(last > 0 ? { updated_at: Math.round(last * 1000) } : {}),
  };
}

/** The conversation's operations gathered into steps of STEP_BYTES and STEP_TURNS; each attachment read between two. */
async function* steps(chat: ConvertedChat, sizes: number[], agent: string, attachments: AttachmentSource): AsyncGenerator<ImportStep> {
  const files = new Map<string, Saved | null>();
  let part: Write[] = [];
  let size = 0;
  for (const [i, op] of chat.ops.entries()) {
    if (op.kind === "rewind") part.push((tx, row) => rewindTx(tx, row, op.before, op.reason));
    else {
      for (const attachment of op.attachments) {
        if (files.has(attachment.id)) continue;
        const found = await attachments(attachment);
        if (!found) {
          files.set(attachment.id, null);
          continue;
        }
        const filename = safeFilename(clean(attachment.name === attachment.id ? found.name : attachment.name, "A file name"));
        const mimeType = mimeTypeOf(attachment, filename);
        const saved: Saved = { filename, mimeType };
        files.set(attachment.id, saved);
        // The quota counts the file before its bytes are read.
        const bytes = fileBytes(filename, mimeType, found.size);
        yield together([...part, (tx, row) => assertRoom(tx, row.user_id, bytes)]);
        [part, size] = [[], 0];
        const data = await found.read();
        yield async (tx, row) => {
          // Stored once per user: an attachment imported again, or one they uploaded, takes no more room.
          const blob = await putBlob(tx, row.user_id, data);
          saved.blob = blob;
          saved.version = await insertVersion(tx, row, filename, {
            mime_type: mimeType,
            size: blob.size,
            data: Buffer.alloc(0),
            tombstone: false,
            restored_from: null,
            blob_sha256: blob.sha256,
          });
        };
      }
      part.push((tx, row) => appendTurn(tx, row, op, files, agent));
    }
    size += sizes[i];
    if (size >= STEP_BYTES || part.length >= STEP_TURNS) {
      yield together(part);
      [part, size] = [[], 0];
    }
  }
  if (part.length) yield together(part);
}

function together(writes: Write[]): ImportStep {
  return async (tx, start) => {
    let row = start;
    for (const [i, write] of writes.entries()) {
      if (i > 0) row = await freshRow(tx, row.id);
      await write(tx, row);
    }
  };
}

/** A turn: its user's event attaches the files it attached in ChatGPT (or says one was not imported), then its task. */
async function appendTurn(tx: Executor, row: SessionRow, op: Turn, files: Map<string, Saved | null>, agent: string) {
  const [first, ...rest] = op.events;
  const artifactDelta = { ...first.actions?.artifact_delta };
  const notes: string[] = [];
  const attached: Part[] = [];
  for (const attachment of op.attachments) {
    const saved = files.get(attachment.id);
    if (saved?.version === undefined || !saved.blob) notes.push(`\n\n[Attachment not imported: ${attachment.name}]`);
    else {
      artifactDelta[saved.filename] = saved.version;
      const { filename, mimeType, version, blob } = saved;
      attached.push(attachmentPart({ filename, version, mime_type: mimeType, size: blob.size, sha256: blob.sha256 }));
    }
  }
  const parts = [...(first.content?.parts ?? []), ...notes.map((text) => ({ text })), ...attached];
  const user: AdkEvent = {
    ...first,
    ...(first.content ? { content: { ...first.content, parts } } : {}),
    actions: { ...first.actions, artifact_delta: artifactDelta },
  };
  const timestamp = new Date((first.timestamp || Date.now() / 1000) * 1000).toISOString();
  const task: Task = {
    kind: "task",
    id: randomUUID(),
    contextId: row.id,
    status: { state: "completed", timestamp },
    metadata: { kagent_invocation_id: op.invocationId, kagent_agent: agent },
  };
  await appendEventsTx(tx, row, [user, ...rest], { imported: true, task: { task } });
}
