import { handler, readQuery } from "@/lib/api/handler";
import { uploadQuery } from "@/lib/api/schemas";
import { config } from "@/lib/config";
import { FileTooLargeError, storeUpload } from "@/lib/db/queries";
import { attachmentType } from "@/lib/session/attachments";
import { isMimeType } from "@/lib/session/mime";

/** The body's chunks; a reader that stops early leaves the rest unread, not cancelled. */
async function* chunksOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) yield next.value;
  } finally {
    reader.releaseLock();
  }
}

/** Reads what is left of a refused upload, so a browser still sending it gets the answer instead of a broken connection. */
async function drain(body: ReadableStream<Uint8Array> | null) {
  try {
    if (body) for await (const _ of chunksOf(body)) void _;
  } catch {
    // the client went away
  }
}

/**
 * Uploads a file to attach to a message (docs/api.md, "Uploads"): its bytes are the body, streamed to the store
 * as they arrive; its type is the body's `Content-Type`.
 */
export const POST = handler(async ({ request, userId }) => {
  const { filename } = readQuery(request, uploadQuery);
  const limit = config().limits.uploadBytes;
  if (Number(request.headers.get("content-length") ?? 0) > limit) throw new FileTooLargeError(limit);
  const given = request.headers.get("content-type")?.trim() ?? "";
  const mimeType = attachmentType(filename, isMimeType(given) ? given : null);
  try {
    return { data: await storeUpload(userId, request.body ? chunksOf(request.body) : [], { filename, mimeType }), status: 201 };
  } catch (error) {
    await drain(request.body);
    throw error;
  }
});
