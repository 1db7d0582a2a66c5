/**
 * ChatGPT export conversations written for the tests, in the export's shape (`mapping` of nodes with
 * `parent`/`children`, `current_node`, messages with `author`, `content`, `metadata`, `recipient`…).
 */
import { crc32, deflateRawSync } from "node:zlib";

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

/** A mapping node as the export writes it, `children` and `parent` as given (they need not agree). */
function node(id: string, parent: string | null, children: string[], role?: "user" | "assistant" | "system") {
  const hidden = role === "system";
  const content = { content_type: "text", parts: [id] };
  const message = role ? { id, author: { role }, content, metadata: hidden ? { is_visually_hidden_from_conversation: true } : {} } : null;
  return { id, parent, children, message };
}

/** Mappings that are not trees (issue 37): each hung the import (or imported nothing, silently) before it refused them. */
export const LOOPS: Record<string, Record<string, unknown>> = {
  "a message that is its own child": { r: node("r", null, ["u"]), u: node("u", "r", ["u"], "user") },
  "two replies each other's child": {
    u: node("u", null, ["a"], "user"),
    a: node("a", "u", ["b"], "assistant"),
    b: node("b", "a", ["a"], "assistant"),
  },
  "a user message under its own reply": { u: node("u", null, ["a"], "user"), a: node("a", "u", ["u"], "assistant") },
  "two hidden messages in a ring": {
    r: node("r", null, ["h1"]),
    h1: node("h1", "r", ["h2"], "system"),
    h2: node("h2", "h1", ["h1"], "system"),
  },
  "a ring with no first message": { a: node("a", "b", ["b"], "user"), b: node("b", "a", ["a"], "assistant") },
  "a message that is its own parent": { u: node("u", "u", [], "user") },
};

/** A ZIP entry: its content, deflated or stored, and (to lie) the size its headers declare. */
type ZipEntry = string | Buffer | { data: string | Buffer; deflate?: boolean; declaredSize?: number };

/** A ZIP of `files` (stored, unless an entry asks to be deflated), as ChatGPT's export is laid out. */
export function zip(files: Record<string, ZipEntry>): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, entry] of Object.entries(files)) {
    const { data: content, deflate = false, declaredSize } = typeof entry === "string" || Buffer.isBuffer(entry) ? { data: entry } : entry;
    const data = Buffer.from(content);
    const stored = deflate ? deflateRawSync(data) : data;
    const nameBytes = Buffer.from(name);
    const crc = crc32(data);
    const size = declaredSize ?? data.length;
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(deflate ? 8 : 0, 8);
    header.writeUInt32LE(crc, 14);
    header.writeUInt32LE(stored.length, 18);
    header.writeUInt32LE(size, 22);
    header.writeUInt16LE(nameBytes.length, 26);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(20, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(deflate ? 8 : 0, 10);
    record.writeUInt32LE(crc, 16);
    record.writeUInt32LE(stored.length, 20);
    record.writeUInt32LE(size, 24);
    record.writeUInt16LE(nameBytes.length, 28);
    record.writeUInt32LE(offset, 42);
    locals.push(header, nameBytes, stored);
    central.push(record, nameBytes);
    offset += header.length + nameBytes.length + stored.length;
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
