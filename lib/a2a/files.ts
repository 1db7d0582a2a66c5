import "server-only";
import type { Message as CoreMessage, Part as CorePart } from "@a2a-js/sdk";
import { config } from "@/lib/config";
import { removeUpload, storeUpload } from "@/lib/db/queries";
import { type AttachmentSource, attachmentType } from "@/lib/session/attachments";
import { isMimeType } from "@/lib/session/mime";
import { malformed } from "./errors";

/** An upload of this app's (docs/api.md, "Uploads"), and a file version of a chat (`GET …/artifacts/{filename}?version=`). */
const UPLOAD_PATH = /^\/api\/uploads\/([^/]+)$/;
const FILE_PATH = /^\/api\/sessions\/([^/]+)\/artifacts\/([^/]+)$/;

/**
 * What a file part's URL names: this app's own upload route, or an attachment of the chat the message goes to
 * (sending a file again), relative or at the origin the caller sees — never another address, which the server
 * would have to fetch (a request forged on the caller's behalf).
 */
function sourceOf(url: string, origin: string, sessionId: string | undefined): AttachmentSource {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url, origin);
  } catch {
    // not a URL
  }
  if (parsed?.origin === origin && !parsed.hash) {
    const upload = parsed.search ? null : UPLOAD_PATH.exec(parsed.pathname);
    if (upload) return { upload: decodeURIComponent(upload[1]) };
    const file = FILE_PATH.exec(parsed.pathname);
    const version = parsed.searchParams.get("version");
    if (file && sessionId && decodeURIComponent(file[1]) === sessionId && version && /^\d{1,9}$/.test(version)) {
      return { filename: decodeURIComponent(file[2]), version: Number(version) };
    }
  }
  throw malformed(
    `A file part's uri must be an upload of this app (${origin}/api/uploads/{id}) or an attachment of this chat; send any other file as bytes`,
  );
}

export interface SentFiles {
  /** What the message attaches, in its order. */
  attachments: AttachmentSource[];
  /** Removes the uploads made here for the message's bytes: once its turn began, its files name their blobs. */
  release(): Promise<void>;
}

const isFile = (part: CorePart) => part.content?.$case === "raw" || part.content?.$case === "url";

/**
 * The files a sent message carries (docs/api.md, "Sending messages"): a part's bytes are stored as an upload of
 * the caller's, a part's URL must name one of theirs or an attachment of the chat. At most RETRACE_MAX_ATTACHMENTS.
 */
export async function sentFiles(userId: string, message: CoreMessage, origin: string): Promise<SentFiles> {
  const parts = message.parts.filter(isFile);
  const limit = config().limits.attachments;
  if (parts.length > limit) throw malformed(`A message carries at most ${limit} attachments; this one has ${parts.length}`);
  const attachments: AttachmentSource[] = [];
  const made: string[] = [];
  const release = async () => {
    for (const id of made) await removeUpload(userId, id).catch(() => undefined);
  };
  try {
    for (const part of parts) {
      if (part.content?.$case === "url") attachments.push(sourceOf(part.content.value, origin, message.contextId || undefined));
      else if (part.content?.$case === "raw") {
        const filename = part.filename || "attachment";
        const mimeType = attachmentType(filename, isMimeType(part.mediaType) ? part.mediaType : null);
        const upload = await storeUpload(userId, [part.content.value], { filename, mimeType });
        made.push(upload.id);
        attachments.push({ upload: upload.id });
      }
    }
  } catch (error) {
    await release();
    throw error;
  }
  return { attachments, release };
}
