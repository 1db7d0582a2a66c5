/**
 * A ChatGPT export's conversation (`conversations.json`, or one shard `conversations-NNN.json` of the newer
 * split export) as Retrace operations. Its `mapping` is a tree of messages: an edited question is a sibling
 * user message, a regenerated answer a sibling reply. Retrace keeps every branch as a version (docs/semantics.md, "Versions"):
 * each alternative becomes a sibling invocation, reached by replaying the tree — a turn, then a rewind before
 * it and its sibling — with the branch ChatGPT showed (`current_node`) visited last at every level, so it
 * ends as the head. Pure: the store applies the operations (lib/db/archive-import.ts).
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { issuesText, ValidationError } from "@/lib/errors";
import { newInvocationId } from "@/lib/session/rewind";
import type { AdkEvent, Part } from "@/lib/session/types";

export interface Attachment {
  /** The export's file id (`file-…`), the prefix of the attachment's name in the export's ZIP. */
  id: string;
  name: string;
  mimeType: string | null;
}

type ImportOp =
  /** A turn: its events in order; `attachments` go with its first event (the user's message). */
  | { kind: "turn"; invocationId: string; events: AdkEvent[]; attachments: Attachment[] }
  /** Back to before `before`, so the next turn becomes its sibling. */
  | { kind: "rewind"; before: string; reason: "edit" | "regenerate" };

export interface ConvertedChat {
  name: string;
  /** Seconds since the epoch, when the export says. */
  createdAt: number | null;
  ops: ImportOp[];
}

const message = z.looseObject({
  id: z.string(),
  author: z.looseObject({ role: z.string(), name: z.string().nullish() }),
  create_time: z.number().nullish(),
  content: z.looseObject({ content_type: z.string().optional() }).nullish(),
  recipient: z.string().nullish(),
  metadata: z.looseObject({}).nullish(),
});
type Message = z.infer<typeof message>;

const conversation = z.looseObject({
  title: z.string().nullish(),
  create_time: z.number().nullish(),
  current_node: z.string().nullish(),
  mapping: z.record(
    z.string(),
    z.looseObject({ message: message.nullish(), parent: z.string().nullish(), children: z.array(z.string()).nullish() }),
  ),
});

/** Content that ChatGPT does not show as a message: its system prompt, custom instructions, hidden reasoning. */
const HIDDEN_CONTENT = new Set(["user_editable_context", "model_editable_context", "thoughts", "reasoning_recap", "system_error"]);

type Kind = "user" | "reply" | "skip";

function kindOf(m: Message | null | undefined): Kind {
  if (!m || (m.metadata as { is_visually_hidden_from_conversation?: boolean } | null)?.is_visually_hidden_from_conversation) return "skip";
  if (HIDDEN_CONTENT.has(m.content?.content_type ?? "")) return "skip";
  if (m.author.role === "user") return "user";
  return m.author.role === "assistant" || m.author.role === "tool" ? "reply" : "skip";
}

/** A message's text: string parts (and `text`/`result` fields) joined; attachments from image pointers and metadata. */
function contentOf(m: Message): { text: string; attachments: Attachment[] } {
  const content = (m.content ?? {}) as { parts?: unknown[]; text?: unknown; result?: unknown; language?: unknown };
  const texts: string[] = [];
  const attachments = new Map<string, Attachment>();
  for (const part of content.parts ?? []) {
    if (typeof part === "string") texts.push(part);
    else if (part && typeof part === "object") {
      const p = part as { text?: unknown; asset_pointer?: unknown };
      if (typeof p.text === "string") texts.push(p.text);
      if (typeof p.asset_pointer === "string") {
        const id = p.asset_pointer.replace(/^[a-z-]+:\/\//, "");
        attachments.set(id, { id, name: id, mimeType: null });
      }
    }
  }
  for (const field of [content.text, content.result]) if (typeof field === "string") texts.push(field);
  const listed = ((m.metadata as { attachments?: unknown } | null)?.attachments ?? []) as Record<string, unknown>[];
  for (const a of Array.isArray(listed) ? listed : []) {
    if (typeof a?.id !== "string") continue;
    const mime = a.mime_type ?? a.mimeType;
    attachments.set(a.id, {
      id: a.id,
      name: typeof a.name === "string" && a.name ? a.name : a.id,
      mimeType: typeof mime === "string" ? mime : null,
    });
  }
  return { text: texts.join("\n\n").trim(), attachments: [...attachments.values()] };
}

interface Variant {
  invocationId: string;
  user: Message | null;
  replies: Message[];
  /** The user messages that follow this variant's last reply: the next turns. */
  next: string[];
  last: string;
  children: Variant[];
}

type Node = { message?: Message | null; parent?: string | null; children?: string[] | null };

/** Events the branches of a conversation may repeat beyond one per message (a reply shared by regenerated paths repeats). */
const MAX_REPEATED_EVENTS = 10_000;

/**
 * The first messages of a mapping that is a tree; anything else is refused: a message that is its own parent or
 * ancestor, one reached twice from the first ones (a loop of children, or two parents), or no first message at all.
 */
function rootsOf(mapping: Map<string, Node>): string[] {
  const parentOf = (id: string) => {
    const parent = mapping.get(id)?.parent;
    return parent && mapping.has(parent) ? parent : null;
  };
  const roots = [...mapping.keys()].filter((id) => parentOf(id) === null);
  if (mapping.size > 0 && roots.length === 0) throw new ValidationError("its messages form a loop: every one has a parent");
  // Every chain of parents ends at a first message.
  const settled = new Set(roots);
  for (const id of mapping.keys()) {
    const chain = new Set<string>();
    for (let at = id; !settled.has(at); at = parentOf(at) as string) {
      if (chain.has(at)) throw new ValidationError(`message ${at} is its own ancestor: its mapping has a loop`);
      chain.add(at);
    }
    for (const at of chain) settled.add(at);
  }
  // From the first messages, each is reached once.
  const seen = new Set<string>();
  const pending = [...roots];
  while (pending.length) {
    const id = pending.pop() as string;
    if (seen.has(id)) throw new ValidationError(`message ${id} is reached twice: its mapping has a loop`);
    seen.add(id);
    for (const child of mapping.get(id)?.children ?? []) if (mapping.has(child)) pending.push(child);
  }
  return roots;
}

/** Converts one conversation of a ChatGPT export; `agent` authors the replies. */
export function conversationToChat(
  input: unknown,
  agent: string,
  ids: { invocation: () => string; event: () => string } = { invocation: newInvocationId, event: () => randomUUID() },
): ConvertedChat {
  const parsed = conversation.safeParse(input);
  if (!parsed.success) throw new ValidationError(`Not a ChatGPT conversation: ${issuesText(parsed.error)}`);
  const mapping = new Map<string, Node>(Object.entries(parsed.data.mapping));
  const roots = rootsOf(mapping);
  const node = (id: string) => mapping.get(id) as Node;
  const kind = (id: string) => kindOf(node(id).message);
  /** A node's children with hidden nodes stepped through (their children take their place). */
  const visibleChildren = (id: string | null): string[] => {
    const out: string[] = [];
    const pending = [...(id === null ? roots : (node(id).children ?? []))].reverse();
    while (pending.length) {
      const next = pending.pop() as string;
      if (!mapping.has(next)) continue;
      if (kind(next) === "skip") pending.push(...[...(node(next).children ?? [])].reverse());
      else out.push(next);
    }
    return out;
  };
  const current = new Set<string>();
  for (let at = parsed.data.current_node ?? null; at && mapping.has(at) && !current.has(at); at = node(at).parent ?? null) current.add(at);

  // Each variant repeats the replies on its path: a budget keeps a small export from expanding without end.
  let budget = mapping.size + MAX_REPEATED_EVENTS;
  /** The variants of a turn: one per path through its replies (a regenerated answer is another path). */
  const variantsOf = (user: string | null, rootReplies: string[] = []): Variant[] => {
    const variants: Variant[] = [];
    const claimed = new Set<string>();
    // Depth-first over the reply paths, in the export's order; a path is its last reply and the path before it.
    type Path = { at: string; before: Path | null; length: number } | null;
    const stack: Path[] = user === null ? rootReplies.map((r) => ({ at: r, before: null, length: 1 })).reverse() : [null];
    while (stack.length) {
      const path = stack.pop() as Path;
      const replies = visibleChildren(path?.at ?? user).filter((c) => kind(c) === "reply");
      for (const r of [...replies].reverse()) stack.push({ at: r, before: path, length: (path?.length ?? 0) + 1 });
      if (replies.length > 0) continue;
      budget -= (path?.length ?? 0) + 1;
      if (budget < 0) throw new ValidationError(`its branches repeat more than ${MAX_REPEATED_EVENTS.toLocaleString("en")} messages`);
      const nodes: string[] = [];
      for (let p = path; p; p = p.before) nodes.push(p.at);
      nodes.reverse();
      // The user messages under a path's messages are the next turns, of the first variant through each message.
      const next: string[] = [];
      for (const n of [user, ...nodes]) {
        if (n === null || claimed.has(n)) continue;
        claimed.add(n);
        next.push(...visibleChildren(n).filter((c) => kind(c) === "user"));
      }
      variants.push({
        invocationId: ids.invocation(),
        user: user === null ? null : (node(user).message as Message),
        replies: nodes.map((n) => node(n).message as Message),
        next,
        last: nodes.at(-1) ?? (user as string),
        children: [],
      });
    }
    return variants;
  };
  const startUsers = visibleChildren(null).filter((c) => kind(c) === "user");
  const startReplies = visibleChildren(null).filter((c) => kind(c) === "reply");
  const top = [...(startReplies.length ? variantsOf(null, startReplies) : []), ...startUsers.flatMap((u) => variantsOf(u))];
  // Children built breadth-first, so no depth of conversation exhausts the stack.
  const queue = [...top];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i];
    v.children = v.next.flatMap((u) => variantsOf(u));
    queue.push(...v.children);
  }
  const ops: ImportOp[] = [];
  const fallback = parsed.data.create_time ?? 0;
  const frames = [{ children: showingLast(top, current), i: 0 }];
  while (frames.length) {
    const frame = frames[frames.length - 1];
    if (frame.i >= frame.children.length) {
      frames.pop();
      continue;
    }
    const variant = frame.children[frame.i];
    const previous = frame.children[frame.i - 1];
    if (previous) ops.push({ kind: "rewind", before: previous.invocationId, reason: sameText(previous, variant) ? "regenerate" : "edit" });
    frame.i += 1;
    ops.push(turnOf(variant, agent, fallback, ids.event));
    frames.push({ children: showingLast(variant.children, current), i: 0 });
  }
  return { name: parsed.data.title?.trim().slice(0, 200) || "Imported chat", createdAt: parsed.data.create_time ?? null, ops };
}

/** Siblings in the export's order, the one on ChatGPT's current branch last (it must end as the head). */
function showingLast(variants: Variant[], current: Set<string>): Variant[] {
  const shown = variants.findIndex((v) => current.has(v.last));
  return shown < 0 ? variants : [...variants.slice(0, shown), ...variants.slice(shown + 1), variants[shown]];
}

const sameText = (a: Variant, b: Variant) => a.user !== null && b.user !== null && contentOf(a.user).text === contentOf(b.user).text;

function turnOf(variant: Variant, agent: string, fallback: number, eventId: () => string): ImportOp {
  const events: AdkEvent[] = [];
  let attachments: Attachment[] = [];
  const push = (m: Message, author: string, role: string, parts: Part[]) => {
    events.push({
      id: eventId(),
      invocation_id: variant.invocationId,
      author,
      timestamp: m.create_time ?? fallback,
      content: { role, parts },
      actions: { state_delta: {}, artifact_delta: {} },
      custom_metadata: { chatgpt_message_id: m.id },
    });
  };
  if (variant.user) {
    const { text, attachments: files } = contentOf(variant.user);
    attachments = files;
    push(variant.user, "user", "user", [{ text }]);
  }
  for (const reply of variant.replies) {
    const { text } = contentOf(reply);
    const recipient = reply.recipient && reply.recipient !== "all" ? reply.recipient : null;
    if (reply.author.role === "tool") {
      push(reply, agent, "user", [{ function_response: { id: reply.id, name: reply.author.name ?? "tool", response: { output: text } } }]);
    } else if (recipient) {
      push(reply, agent, "model", [{ function_call: { id: reply.id, name: recipient, args: { input: text } } }]);
    } else if (text) {
      push(reply, agent, "model", [{ text }]);
    }
  }
  // Every turn has an event, so a later rewind can name it.
  if (events.length === 0) push(variant.replies[0] as Message, agent, "model", [{ text: "" }]);
  const last = events.at(-1);
  if (last && last.author !== "user") last.turn_complete = true;
  return { kind: "turn", invocationId: variant.invocationId, events, attachments };
}
