import { isMimeType } from "@/lib/session/mime";

/** Bytes a stream hands out as they are read: a file of any size passes through in chunks, never whole. */
function streamOf(chunks: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array<ArrayBuffer>> {
  const iterator = chunks[Symbol.asyncIterator]();
  return new ReadableStream({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value as Uint8Array<ArrayBuffer>);
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/**
 * A stored file, as the app serves every file (a chat's, an upload, a share link's): its type (opaque bytes when
 * it was stored without a valid one), inline under its name, and never able to run in the app's origin — an HTML
 * or SVG file is sandboxed and nothing is sniffed (docs/api.md, "Artifacts").
 */
export function fileResponse(
  body: Uint8Array<ArrayBuffer> | AsyncIterable<Uint8Array>,
  file: { filename: string; mimeType: string; size?: number },
  headers: Record<string, string> = {},
): Response {
  return new Response(body instanceof Uint8Array ? body : streamOf(body), {
    headers: {
      "content-type": isMimeType(file.mimeType) ? file.mimeType : "application/octet-stream",
      "content-disposition": `inline; filename*=UTF-8''${encodeURIComponent(file.filename)}`,
      ...(file.size === undefined ? {} : { "content-length": String(file.size) }),
      "content-security-policy": "sandbox",
      "x-content-type-options": "nosniff",
      ...headers,
    },
  });
}
