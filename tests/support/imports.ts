/**
 * Heavy uploads for the import's stall checks (tests/store-hardening.test.ts) and `npm run bench -- --hardening`:
 * a big archive chat, many small ChatGPT conversations, an attachment many messages name, one huge value.
 */
import { createHash } from "node:crypto";
import type { ChatRecord } from "@/lib/archive/format";
import { archiveText } from "@/lib/archive/writer";
import { conversation, zip } from "./chatgpt";

/** `data` as an upload arrives: in chunks of `size` bytes. */
export async function* chunks(data: string | Uint8Array, size = 64 * 1024): AsyncGenerator<Uint8Array> {
  const bytes = typeof data === "string" ? Buffer.from(data) : data;
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

/** A Retrace archive of one chat: `turns` turns (a question and an answer of `textBytes` each), and `files` files. */
export async function archiveOfOneChat(turns: number, textBytes: number, files: Buffer[] = []): Promise<string> {
  const at = new Date(1_700_000_000_000).toISOString();
  async function* records(): AsyncGenerator<ChatRecord> {
    yield {
      kind: "session",
      value: {
        id: "big",
        agent: "demo",
        name: "Big",
        named_by_user: true,
        created_at: at,
        updated_at: at,
        initial_state: {},
        state: {},
        last_seq: 0,
        forked_from_session_id: null,
        forked_before_invocation_id: null,
      },
    };
    for (const [i, data] of files.entries()) {
      const file = { filename: `f${i}.bin`, version: 0, mime_type: "application/octet-stream", tombstone: false, restored_from: null };
      const sha256 = createHash("sha256").update(data).digest("hex");
      yield { kind: "file", value: { ...file, created_at: at, sha256, data_base64: data.toString("base64") } };
    }
    const text = "lorem ipsum dolor sit amet ".repeat(Math.ceil(textBytes / 27)).slice(0, textBytes);
    let seq = 0;
    for (let t = 0; t < turns; t++) {
      const base = { invocation_id: `turn-${t}`, timestamp: 1_700_000_000 + t, actions: { state_delta: { step: t }, artifact_delta: {} } };
      yield {
        kind: "event",
        value: { ...base, seq: ++seq, id: `q${t}`, author: "user", content: { role: "user", parts: [{ text: `q${t} ${text}` }] } },
      };
      yield {
        kind: "event",
        value: { ...base, seq: ++seq, id: `a${t}`, author: "demo", content: { role: "model", parts: [{ text: `a${t} ${text}` }] } },
      };
    }
  }
  async function* chats() {
    yield records();
  }
  let text = "";
  for await (const piece of archiveText(chats())) text += piece;
  return text;
}

/** A ChatGPT conversations.json of `n` small conversations (a question and its answer each). */
export function manyConversations(n: number): string {
  const one = (i: number) =>
    conversation(
      `Chat ${i}`,
      [
        { id: `u${i}`, parent: null, role: "user", text: `Question ${i}` },
        { id: `a${i}`, parent: `u${i}`, role: "assistant", text: `Answer ${i}` },
      ],
      `a${i}`,
    );
  return `[${Array.from({ length: n }, (_, i) => JSON.stringify(one(i))).join(",")}]`;
}

/** ChatGPT's ZIP export: one attachment of `bytes` bytes (deflated: the ZIP stays small) that `messages` user messages attach. */
export function attachedEverywhere(bytes: number, messages: number): Buffer {
  const attachments = [{ id: "file-Big1", name: "big.bin", mime_type: "application/octet-stream" }];
  const specs: Parameters<typeof conversation>[1] = [];
  for (let i = 0; i < messages; i++) {
    specs.push({ id: `u${i}`, parent: i ? `a${i - 1}` : null, role: "user", text: `look ${i}`, attachments });
    specs.push({ id: `a${i}`, parent: `u${i}`, role: "assistant", text: `seen ${i}` });
  }
  const exported = conversation("Attachments", specs, `a${messages - 1}`);
  return zip({
    "conversations.json": { data: JSON.stringify([exported]), deflate: true },
    "file-Big1-big.bin": { data: Buffer.alloc(bytes, 7), deflate: true },
  });
}

/** A conversations.json whose first title is `bytes` long, streamed without ever being built whole. */
export async function* hugeValue(bytes: number, size = 64 * 1024): AsyncGenerator<Uint8Array> {
  yield Buffer.from('[{"title":"');
  const piece = Buffer.alloc(size, "x");
  for (let sent = 0; sent < bytes; sent += size) yield piece.subarray(0, Math.min(size, bytes - sent));
  yield Buffer.from('","mapping":{}}]');
}
