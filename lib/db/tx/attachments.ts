/**
 * A message's attachments inside its turn's transaction (docs/semantics.md, "Attachments"): each upload becomes
 * the next version of a file of the chat, naming the upload's blob (no byte is copied), and the user's event
 * names those versions — in its parts, for the model and the chat, and in its `artifact_delta`, for rewind, fork
 * and share. An upload that is not the user's, or has expired, is a 404 and nothing is written.
 */

import { sql } from "drizzle-orm";
import { config } from "@/lib/config";
import { NotFoundError, ValidationError } from "@/lib/errors";
import { type AttachmentSource, attachmentPart, uniqueNames } from "@/lib/session/attachments";
import { USER_PREFIX } from "@/lib/session/state";
import type { AdkEvent } from "@/lib/session/types";
import type { Executor } from "../database";
import type { SessionRow } from "../rows";
import { insertVersion, validateFilename } from "./artifacts";
import { requireUploads, type UploadRow } from "./uploads";

type Source = Pick<UploadRow, "filename" | "mime_type" | "size" | "sha256">;

/** An attachment of the chat's own (a file version whose bytes are a blob), as a source to attach again. */
async function chatAttachment(tx: Executor, row: SessionRow, filename: string, version: number): Promise<Source> {
  const found = await tx.one<{ mime_type: string; size: number; blob_sha256: string }>(sql`
    SELECT mime_type, size, blob_sha256 FROM artifacts
    WHERE scope = ${row.id} AND filename = ${filename} AND version = ${version} AND blob_sha256 IS NOT NULL AND NOT tombstone`);
  if (!found) throw new NotFoundError(`This chat has no attachment ${filename} version ${version}`);
  return { filename, mime_type: found.mime_type, size: Number(found.size), sha256: found.blob_sha256 };
}

/** Each source's file: uploads read together (404 for one that is not the user's or has expired), the chat's own looked up. */
async function sourcesOf(tx: Executor, row: SessionRow, sources: AttachmentSource[]): Promise<Source[]> {
  const uploads = await requireUploads(
    tx,
    row.user_id,
    sources.flatMap((s) => ("upload" in s ? [s.upload] : [])),
  );
  const files: Source[] = [];
  for (const source of sources)
    files.push("upload" in source ? (uploads.shift() as Source) : await chatAttachment(tx, row, source.filename, source.version));
  return files;
}

/** The most attachments one message may carry (RETRACE_MAX_ATTACHMENTS), checked before anything is read. */
function checkAttachmentCount(count: number) {
  const limit = config().limits.attachments;
  if (count > limit) throw new ValidationError(`A message carries at most ${limit} attachments; this one has ${count}`);
}

/** `event` with `sources` attached (the user's row is locked by the caller, lib/db/tx/blobs.ts). */
export async function attachFiles(tx: Executor, row: SessionRow, event: AdkEvent, sources: AttachmentSource[]): Promise<AdkEvent> {
  if (sources.length === 0) return event;
  checkAttachmentCount(sources.length);
  const uploads = await sourcesOf(tx, row, sources);
  // Never a `user:` file: an attachment belongs to its chat.
  const names = uniqueNames(uploads.map((u) => (u.filename.startsWith(USER_PREFIX) ? `_${u.filename}` : u.filename)));
  const parts = [...(event.content?.parts ?? [])];
  const delta = { ...event.actions?.artifact_delta };
  for (const [i, upload] of uploads.entries()) {
    const filename = names[i];
    validateFilename(filename);
    const file = {
      mime_type: upload.mime_type,
      size: upload.size,
      data: Buffer.alloc(0),
      tombstone: false,
      restored_from: null,
      blob_sha256: upload.sha256,
    };
    const version = await insertVersion(tx, row, filename, file);
    delta[filename] = version;
    parts.push(attachmentPart({ filename, version, mime_type: upload.mime_type, size: upload.size, sha256: upload.sha256 }));
  }
  return {
    ...event,
    content: { role: "user", ...event.content, parts },
    actions: { ...event.actions, artifact_delta: delta },
  };
}
