import { randomUUID } from "node:crypto";
import { BUILTIN_TODOS } from "@/lib/config";
import { type Attachment, attachmentsOf } from "@/lib/session/attachments";
import { DEMO_AGENT, eventText } from "@/lib/session/names";
import type { Json } from "@/lib/session/types";
import { describeAttachment } from "./attachments";
import { userTexts } from "./context";
import { exposedName } from "./toolbox";
import type { Agent, AgentOutput, CallResponses, InvocationContext } from "./types";

/** What the demo's `demo` model says after a tool call, and what its `demo-terse` model says. */
type Reply = (response: Record<string, Json>) => string;

/** A tool call the demo makes: one of the four state and file tools, or one of the built-in todo server's. */
export type Intent = { tool: string; args: Record<string, Json>; reply: Reply; terse: Reply } | { recap: true } | { help: true };

const todoTool = (name: string) => exposedName(BUILTIN_TODOS.name, name);
const ADD_TODO = [
  /^(?:please )?add (?:a )?(?:new )?(?:todo|task)(?::\s*|\s+)(.+)$/i,
  /^(?:please )?add (.+?) to (?:my |the )?(?:todos|todo list|list)$/i,
];
const LIST_TODOS =
  /^(?:please )?(?:(?:list|show)(?: me)?(?: all)?(?: my| the)? (?:todos|todo list|tasks)|(?:my )?todos|what(?: i|'|)s on my (?:todo )?list|what are my todos)$/i;
const REMOVE_TODO = /^(?:please )?(?:remove|delete|complete|finish|tick off|done(?: with)?) (?:the )?(?:todo|task) (?:number )?#?(\d+)$/i;
/** What the demo says of a todo call's response: what the server answered, or why nothing was done. */
const todoReply = (done: (result: string) => string, notDone: string) => (r: Record<string, Json>) =>
  r.denied
    ? `OK — ${notDone}: you denied it.${typeof r.error === "string" && r.error.includes(": ") ? ` (${r.error.split(": ").slice(1).join(": ")})` : ""}`
    : typeof r.error === "string"
      ? `${notDone[0].toUpperCase()}${notDone.slice(1)}: ${r.error}`
      : done(String(r.result ?? ""));

/** The todo commands, checked before the state and file ones (`add todo …` is not a file to save). */
function todoIntent(t: string): Intent | null {
  const added = ADD_TODO.map((re) => t.match(re)).find(Boolean);
  if (added) {
    const text = unquote(added[1].trim());
    return {
      tool: todoTool("add_todo"),
      args: { text },
      reply: todoReply((r) => `Added **${text}**.\n\n${r.replace(/^Added\. /, "")}`, `I did not add **${text}**`),
      terse: todoReply((r) => r, "not added"),
    };
  }
  if (LIST_TODOS.test(t))
    return {
      tool: todoTool("list_todos"),
      args: {},
      reply: todoReply((r) => `Your todos:\n\n${r}`, "I did not read the list"),
      terse: todoReply((r) => r, "not read"),
    };
  const removed = t.match(REMOVE_TODO);
  if (removed) {
    const number = Number(removed[1]);
    return {
      tool: todoTool("remove_todo"),
      args: { number },
      reply: todoReply((r) => `${r}.`, `I did not remove todo ${number}`),
      terse: todoReply((r) => r, "not removed"),
    };
  }
  return null;
}

const NAME = String.raw`["'\x60]?([^\s"'\x60]+?)["'\x60]?`;
const SET = new RegExp(
  `^(?:please )?(?:set|update|change|store) (?:the )?(?:state )?(?:(?:key|value of) )?${NAME}(?: (?:to|as) | ?= ?)(.+)$`,
  "i",
);
const GET = new RegExp(
  `^(?:please )?(?:what is|what's|whats|get|show|read|tell me) (?:me )?(?:the )?(?:state )?(?:(?:key|value of) )?${NAME}(?: in (?:the )?state)?$`,
  "i",
);
const SAVE = new RegExp(
  String.raw`^(?:please )?(?:save|write|store) (?:the |a )?(?:file )?${NAME} (?:with (?:the )?(?:content|text)|containing)(?::\s*|\s)([\s\S]*)$`,
  "i",
);
const LOAD = new RegExp(`^(?:please )?(?:load|open|(?:read|show)(?= (?:me )?(?:the )?file)) (?:me )?(?:the )?(?:file )?${NAME}$`, "i");

/** Drops one pair of matching quotes around the text — but not a pair that opens ```code fences```. */
function unquote(text: string): string {
  const quote = text[0];
  const wrapped = text.length >= 2 && `"'\``.includes(quote) && text.at(-1) === quote;
  return wrapped && text[1] !== quote && text.at(-2) !== quote ? text.slice(1, -1) : text;
}

/** A value as typed: JSON when it parses (`3`, `true`, `{"a":1}`, `"red"`), else the words, unquoted. */
function parseValue(raw: string): Json {
  const value = raw.trim();
  try {
    return JSON.parse(value) as Json;
  } catch {
    return unquote(value);
  }
}

const code = (value: Json | undefined) => `\`${typeof value === "string" ? value : JSON.stringify(value)}\``;

/** Understands a few plain-English commands, leniently: case, spacing, quotes and final punctuation do not matter (docs/semantics.md, "The demo agent"). */
export function parseIntent(text: string): Intent {
  const saved = text.trim().match(SAVE);
  if (saved) {
    const [, filename, content] = saved;
    return {
      tool: "save_artifact",
      args: { filename, content: unquote(content.trim()) },
      reply: (r) => ("error" in r ? `I couldn't save **${filename}**: ${r.error}` : `Saved **${filename}** (version ${r.version}).`),
      terse: (r) => ("error" in r ? `Not saved: ${r.error}` : `Saved, v${r.version}.`),
    };
  }
  const t = text
    .trim()
    .replace(/\s+/g, " ")
    .replace(/[.!?]+$/, "");
  const todo = todoIntent(t);
  if (todo) return todo;
  let m = t.match(LOAD);
  if (m) {
    const filename = m[1];
    return {
      tool: "load_artifact",
      args: { filename },
      reply: (r) => {
        if (typeof r.mime_type === "string" && typeof r.content !== "string") {
          return `**${filename}** (version ${r.version}) is ${r.mime_type}: I can't show it as text.`;
        }
        if (typeof r.content !== "string") return `I couldn't find **${filename}** — it does not exist (or a rewind removed it).`;
        if (r.content.length <= MAX_ECHO && !r.truncated) return `Here is **${filename}** (version ${r.version}):\n\n${r.content}`;
        const total = typeof r.total_characters === "number" ? r.total_characters : r.content.length;
        return `Here is the start of **${filename}** (version ${r.version}; ${MAX_ECHO} of ${total} characters):\n\n${r.content.slice(0, MAX_ECHO)}`;
      },
      terse: (r) => (typeof r.content === "string" ? `v${r.version}:\n\n${r.content.slice(0, MAX_ECHO)}` : "Not found."),
    };
  }
  m = t.match(SET);
  if (m) {
    const key = m[1];
    return {
      tool: "update_state",
      args: { key, value: parseValue(m[2]) },
      reply: (r) => ("error" in r ? `I couldn't set **${key}**: ${r.error}` : `Done — **${key}** is now ${code(r.value)}.`),
      terse: (r) => ("error" in r ? `Not set: ${r.error}` : `${key} = ${code(r.value)}`),
    };
  }
  m = t.match(GET);
  if (m) {
    const key = m[1];
    return {
      tool: "load_state",
      args: { key },
      reply: (r) => ("value" in r ? `**${key}** is ${code(r.value)}.` : `I don't have a value for **${key}** yet.`),
      terse: (r) => ("value" in r ? code(r.value) : "Unset."),
    };
  }
  if (/\brecap\b/i.test(t)) return { recap: true };
  return { help: true };
}

/** The most characters of a file the demo agent shows: a big file becomes a short reply, not an hours-long stream. */
const MAX_ECHO = 2_000;
/** A reply streams in at most this many chunks, whatever its length. */
const MAX_CHUNKS = 200;

const HELP =
  "Hi! I'm the demo agent. I can **set** state (`set color to red`), **read** it (`what is color?`), " +
  "**save** files (`save file notes.txt with content hello`), **load** them (`load file notes.txt`) and " +
  "**recap** what you've said. I also keep your **todo list** with a tool server that acts outside this chat: " +
  "`add todo buy milk`, `list todos`, `remove todo 1` (I ask before I change it). " +
  "Open a message's menu to rewind or fork the chat from there — a rewind does not undo what the tools did.";

const TERSE_HELP =
  "Try: set color to red · what is color? · save file notes.txt with content hello · load file notes.txt · add todo buy milk · recap";

async function recap(ctx: InvocationContext, terse: boolean): Promise<string> {
  const said = userTexts(await ctx.history(), ctx.invocationId).map((s) => s.replace(/\s+/g, " "));
  if (terse) return said.length === 0 ? "Nothing yet." : said.join(" · ");
  if (said.length === 0) return "This is the start of our conversation — nothing to recap yet.";
  return `Here is what you said so far:\n\n${said.map((s, i) => `${i + 1}. ${s}`).join("\n")}`;
}

/** The demo's models: the same tools, replies in full or in a few words. */
const DEMO_MODELS = [{ name: DEMO_AGENT }, { name: `${DEMO_AGENT}-terse` }];

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** The demo's token counts, deterministic (docs/semantics.md, "The demo agent"): a word is a token. */
const demoUsage = (prompt: string, reply: string) => ({
  prompt_token_count: words(prompt),
  candidates_token_count: words(reply),
  total_token_count: words(prompt) + words(reply),
});

function wordDelay(): number {
  const value = Number(process.env.DEMO_WORD_DELAY_MS ?? 25);
  return Number.isFinite(value) && value >= 0 ? value : 25;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (ms === 0 || signal.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });

/** `text` in word-aligned chunks, at most MAX_CHUNKS of them. */
function chunks(text: string): string[] {
  const words = text.split(/(?<=\s)/);
  const size = Math.ceil(words.length / MAX_CHUNKS);
  return Array.from({ length: Math.ceil(words.length / size) }, (_, i) => words.slice(i * size, (i + 1) * size).join(""));
}

/** Streams the reply word by word (a few words at a time when it is long), then emits it as one final event with its usage. */
async function* streamText(ctx: InvocationContext, text: string): AsyncGenerator<AgentOutput> {
  const delay = wordDelay();
  for (const chunk of chunks(text)) {
    if (ctx.signal.aborted) return;
    yield { type: "text-delta", text: chunk };
    await sleep(delay, ctx.signal);
  }
  if (!ctx.signal.aborted) yield { type: "event", parts: [{ text }], usage: demoUsage(eventText(ctx.userEvent), text) };
}

/** What the demo agent says of the files a message attached: each one's name, kind, pages or lines, and size. */
async function received(ctx: InvocationContext, files: Attachment[]): Promise<string> {
  const named: string[] = [];
  for (const file of files) named.push(await describeAttachment(ctx, file));
  const list = named.length === 1 ? named[0] : `${named.length} files: ${named.slice(0, -1).join(", ")} and ${named.at(-1)}`;
  const them = files.length === 1 ? "It is a file" : "They are files";
  return `I received ${list}. ${them} of this chat now: \`load file ${files[0].filename}\` reads ${files.length === 1 ? "it" : "one"} back, and rewinding before this message takes ${files.length === 1 ? "it" : "them"} away.`;
}

/** An answer, after what the agent says of the message's files (if it attached any). */
const after = (prefix: string, text: string) => (prefix ? `${prefix}\n\n${text}` : text);

export const demoAgent: Agent = {
  name: DEMO_AGENT,
  description:
    "An offline demo agent: sets and reads state, saves and loads files, keeps a todo list, recaps the conversation, acknowledges attachments.",
  models: DEMO_MODELS,
  mcp: [BUILTIN_TODOS],
  async *run(ctx): AsyncGenerator<AgentOutput, void, CallResponses | undefined> {
    const terse = ctx.model !== DEMO_AGENT;
    const files = attachmentsOf(ctx.userEvent);
    const intent = parseIntent(eventText(ctx.userEvent));
    const receipt = files.length ? await received(ctx, files) : "";
    if ("help" in intent) return yield* streamText(ctx, receipt || (terse ? TERSE_HELP : HELP));
    if ("recap" in intent) return yield* streamText(ctx, after(receipt, await recap(ctx, terse)));
    // Resumed after the user decided on its call: the runtime made (or refused) it, the reply is what is left.
    const response =
      ctx.resumed?.responses[0] ??
      (yield { type: "calls", calls: [{ id: `adk-${randomUUID()}`, name: intent.tool, args: intent.args }] })?.[0];
    yield* streamText(ctx, after(receipt, (terse ? intent.terse : intent.reply)(response ?? {})));
  },
};
