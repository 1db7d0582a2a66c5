/** Writes an archive (lib/archive/format.ts) as JSON text, a record at a time, so any size streams in bounded memory. */
import { ARCHIVE_FORMAT, ARCHIVE_VERSION, type ChatRecord, SECTIONS } from "./format";

const SECTION_OF = Object.fromEntries(Object.entries(SECTIONS).map(([section, kind]) => [kind, section])) as Record<string, string>;

/** The archive's text in pieces: chats in the order given, each chat's records in archive order. */
export async function* archiveText(chats: AsyncIterable<AsyncIterable<ChatRecord>>, exportedAt = new Date()): AsyncGenerator<string> {
  yield `{"format":${JSON.stringify(ARCHIVE_FORMAT)},"version":${ARCHIVE_VERSION},"exported_at":${JSON.stringify(exportedAt.toISOString())},"chats":[`;
  let chatCount = 0;
  for await (const chat of chats) {
    let section: string | null = null;
    let inSection = 0;
    let opened = false;
    for await (const record of chat) {
      if (record.kind === "session") {
        opened = true;
        yield `${chatCount++ ? "," : ""}\n{"session":${JSON.stringify(record.value)}`;
        continue;
      }
      const next = SECTION_OF[record.kind];
      if (next !== section) {
        yield `${section ? "]" : ""},"${next}":[`;
        section = next;
        inSection = 0;
      }
      yield `${inSection++ ? "," : ""}\n${JSON.stringify(record.value)}`;
    }
    // A chat with no records (deleted meanwhile) leaves nothing.
    if (opened) yield `${section ? "]" : ""}}`;
  }
  yield "\n]}\n";
}
