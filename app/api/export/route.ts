import { handler } from "@/lib/api/handler";
import { attachment, textStream } from "@/lib/api/stream";
import type { ChatRecord } from "@/lib/archive/format";
import { archiveText } from "@/lib/archive/writer";
import { chatRecords, exportOrder } from "@/lib/db/queries";
import { NotFoundError } from "@/lib/errors";

/** A chat deleted while the archive streams is left out rather than ending the download. */
async function* unlessDeleted(records: AsyncGenerator<ChatRecord>): AsyncGenerator<ChatRecord> {
  let first: IteratorResult<ChatRecord>;
  try {
    first = await records.next();
  } catch (error) {
    if (error instanceof NotFoundError) return;
    throw error;
  }
  if (first.done) return;
  yield first.value;
  yield* records;
}

/** Every chat of the caller as one Retrace archive, sources before their forks, streamed. */
export const GET = handler(async ({ userId }) => {
  const order = await exportOrder(userId);
  // Each attachment's bytes go once, with the first chat that has it.
  const written = new Set<string>();
  async function* chats() {
    for (const id of order) yield unlessDeleted(chatRecords(userId, id, written));
  }
  return new Response(textStream(archiveText(chats())), {
    headers: { "content-type": "application/json", "content-disposition": attachment("retrace-chats", "json") },
  });
});
