import "server-only";
/** Streamed response bodies: a piece is produced only when the client has taken the last (backpressure). */
export function textStream(pieces: AsyncIterable<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator = pieces[Symbol.asyncIterator]();
  return new ReadableStream({
    async pull(controller) {
      const { value, done } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(encoder.encode(value));
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/** A download's Content-Disposition, its name made from the chat's. */
export function attachment(name: string, extension: string): string {
  const base =
    name
      .replace(/[^\p{L}\p{N} ._-]+/gu, "")
      .trim()
      .replace(/\s+/g, "-")
      .slice(0, 80) || "chat";
  return `attachment; filename="${base.replace(/[^\x20-\x7e]/g, "_")}.${extension}"; filename*=UTF-8''${encodeURIComponent(base)}.${extension}`;
}
