/**
 * ChatGPT export conversations written for the tests, in the export's shape (`mapping` of nodes with
 * `parent`/`children`, `current_node`, messages with `author`, `content`, `metadata`, `recipient`…).
 */
import { crc32 } from "node:zlib";

interface Spec {
  id: string;
  parent: string | null;
  role?: "system" | "user" | "assistant" | "tool";
  text?: string;
  /** For an assistant's tool call, or a tool's result: the tool. */
  tool?: string;
  hidden?: boolean;
  attachments?: { id: string; name: string; mime_type: string }[];
  contentType?: string;
}

const T0 = 1_735_000_000;

export function conversation(title: string, specs: Spec[], currentNode: string) {
  const mapping: Record<string, unknown> = {};
  const childrenOf = new Map<string | null, string[]>();
  for (const s of specs) childrenOf.set(s.parent, [...(childrenOf.get(s.parent) ?? []), s.id]);
  specs.forEach((s, i) => {
    const children = childrenOf.get(s.id) ?? [];
    const contentType = s.contentType ?? (s.role === "assistant" && s.tool ? "code" : s.role === "tool" ? "execution_output" : "text");
    const content =
      contentType === "code" || contentType === "execution_output"
        ? { content_type: contentType, ...(contentType === "code" ? { language: "unknown" } : {}), text: s.text ?? "" }
        : { content_type: contentType, parts: [s.text ?? ""] };
    mapping[s.id] = {
      id: s.id,
      message: s.role
        ? {
            id: s.id,
            author: { role: s.role, name: s.role === "tool" ? (s.tool ?? null) : null, metadata: {} },
            create_time: s.role === "system" ? null : T0 + i * 10,
            update_time: null,
            content,
            status: "finished_successfully",
            end_turn: s.role === "assistant" && !s.tool ? true : null,
            weight: s.hidden ? 0 : 1,
            metadata: {
              ...(s.hidden ? { is_visually_hidden_from_conversation: true } : {}),
              ...(s.attachments ? { attachments: s.attachments } : {}),
              ...(s.role === "assistant" ? { model_slug: "gpt-4o", finish_details: { type: "stop" } } : {}),
            },
            recipient: s.role === "assistant" && s.tool ? s.tool : "all",
            channel: null,
          }
        : null,
      parent: s.parent,
      children,
    };
  });
  return {
    title,
    create_time: T0,
    update_time: T0 + 1000,
    mapping,
    moderation_results: [],
    current_node: currentNode,
    plugin_ids: null,
    conversation_id: `conv-${title.length}`,
    conversation_template_id: null,
    gizmo_id: null,
    is_archived: false,
    safe_urls: [],
    default_model_slug: "gpt-4o",
    id: `conv-${title.length}`,
  };
}

/**
 * An arithmetic chat: the first answer regenerated (two replies to one question), the question edited once
 * (a sibling user message, answered with a Python tool call), each first branch going on. ChatGPT showed the
 * regenerated answer's branch.
 */
export const branchy = () =>
  conversation(
    "Arithmetic",
    [
      { id: "root", parent: null },
      { id: "sys", parent: "root", role: "system", text: "", hidden: true },
      { id: "u1", parent: "sys", role: "user", text: "What is 2+2?" },
      { id: "a1", parent: "u1", role: "assistant", text: "4" },
      { id: "u2", parent: "a1", role: "user", text: "And 3+3?" },
      { id: "a2", parent: "u2", role: "assistant", text: "6" },
      { id: "a1b", parent: "u1", role: "assistant", text: "Four." },
      { id: "u3", parent: "a1b", role: "user", text: "Thanks!" },
      { id: "a3", parent: "u3", role: "assistant", text: "You're welcome." },
      {
        id: "u1e",
        parent: "sys",
        role: "user",
        text: "What is 2+3?",
        attachments: [{ id: "file-AbC123", name: "sum.png", mime_type: "image/png" }],
      },
      { id: "c1", parent: "u1e", role: "assistant", tool: "python", text: "print(2+3)" },
      { id: "t1", parent: "c1", role: "tool", tool: "python", text: "5" },
      { id: "a4", parent: "t1", role: "assistant", text: "It is 5." },
    ],
    "a3",
  );

/** A ZIP of `files` (stored, not compressed), as ChatGPT's export is laid out. */
export function zip(files: Record<string, string | Buffer>): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(files)) {
    const data = Buffer.from(content);
    const nameBytes = Buffer.from(name);
    const crc = crc32(data);
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt32LE(crc, 14);
    header.writeUInt32LE(data.length, 18);
    header.writeUInt32LE(data.length, 22);
    header.writeUInt16LE(nameBytes.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt32LE(crc, 16);
    entry.writeUInt32LE(data.length, 20);
    entry.writeUInt32LE(data.length, 24);
    entry.writeUInt16LE(nameBytes.length, 28);
    entry.writeUInt32LE(offset, 42);
    locals.push(header, nameBytes, data);
    central.push(entry, nameBytes);
    offset += header.length + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
