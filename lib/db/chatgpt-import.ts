/**
 * Writing a converted ChatGPT conversation (lib/archive/chatgpt.ts) as a new chat, in one transaction:
 * each turn through the store's append with its task, each branch switch through the real rewind (so
 * state, files and the version tree are exactly what sending and editing in Retrace would have made).
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Attachment, ConvertedChat } from "@/lib/archive/chatgpt";
import { isMimeType } from "@/lib/session/mime";
import { USER_PREFIX } from "@/lib/session/state";
import type { Task } from "@/lib/task/types";
import { getDb } from "./client";
import { type SessionRow, summary } from "./rows";
import { appendEventsTx } from "./tx/append";
import { insertVersion, validateFilename } from "./tx/artifacts";
import { clean, freshRow } from "./tx/import";
import { rewindTx } from "./tx/rewind";
import { createSessionTx } from "./tx/sessions";
import type { SessionSummary } from "./types";

/** An attachment's bytes, when the upload holds them (a ZIP export does; a lone conversations.json does not). */
export type AttachmentSource = (attachment: Attachment) => Promise<{ data: Buffer; name: string } | null>;

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

export async function importConversation(
  userId: string,
  chat: ConvertedChat,
  agent: string,
  attachments: AttachmentSource,
): Promise<SessionSummary> {
  const db = await getDb();
  return db.write(async (tx) => {
    let row: SessionRow = await createSessionTx(tx, userId, { agent, name: clean(chat.name, "A conversation title") });
    for (const op of chat.ops) {
      if (op.kind === "rewind") {
        await rewindTx(tx, row, op.before, op.reason);
      } else {
        const [first] = op.events;
        for (const attachment of op.attachments) {
          const file = await attachments(attachment);
          if (!file) {
            first.content?.parts?.push({ text: `\n\n[Attachment not imported: ${attachment.name}]` });
            continue;
          }
          const filename = safeFilename(clean(attachment.name === attachment.id ? file.name : attachment.name, "A file name"));
          const saved = {
            mime_type: mimeTypeOf(attachment, filename),
            size: file.data.length,
            data: file.data,
            tombstone: false,
            restored_from: null,
          };
          const version = await insertVersion(tx, row, filename, saved);
          first.actions = { ...first.actions, artifact_delta: { ...first.actions?.artifact_delta, [filename]: version } };
        }
        const timestamp = new Date((first.timestamp || Date.now() / 1000) * 1000).toISOString();
        const task: Task = {
          kind: "task",
          id: randomUUID(),
          contextId: row.id,
          status: { state: "completed", timestamp },
          metadata: { kagent_invocation_id: op.invocationId, kagent_agent: agent },
        };
        await appendEventsTx(tx, row, op.events, { imported: true, task: { task } });
      }
      row = await freshRow(tx, row.id);
    }
    if (chat.createdAt) {
      await tx.run(sql`UPDATE sessions SET created_at = ${Math.round(chat.createdAt * 1000)} WHERE id = ${row.id}`);
    }
    return summary(await freshRow(tx, row.id));
  });
}
