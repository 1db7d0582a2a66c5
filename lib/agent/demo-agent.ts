import { randomUUID } from "node:crypto";
import { BUILTIN_TODOS } from "@/lib/config";
import { DEMO_AGENT, eventText } from "@/lib/session/names";
import type { Json } from "@/lib/session/types";
import { userTexts } from "./context";
import { exposedName } from "./toolbox";
import type { Agent, AgentOutput, CallResponses, InvocationContext } from "./types";

/** A tool call the demo makes: one of the four state and file tools, or one of the built-in todo server's. */
export type Intent =
  | { tool: string; args: Record<string, Json>; reply: (response: Record<string, Json>) => string }
  | { recap: true }
  | { help: true };

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
    };
  }
  if (LIST_TODOS.test(t))
    return { tool: todoTool("list_todos"), args: {}, reply: todoReply((r) => `Your todos:\n\n${r}`, "I did not read the list") };
  const removed = t.match(REMOVE_TODO);
  if (removed) {
    const number = Number(removed[1]);
    return { tool: todoTool("remove_todo"), args: { number }, reply: todoReply((r) => `${r}.`, `I did not remove todo ${number}`) };
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
        if (typeof r.content !== "string") return `I couldn't find **${filename}** — it does not exist (or a rewind removed it).`;
        if (r.content.length <= MAX_ECHO && !r.truncated) return `Here is **${filename}** (version ${r.version}):\n\n${r.content}`;
        const total = typeof r.total_characters === "number" ? r.total_characters : r.content.length;
        return `Here is the start of **${filename}** (version ${r.version}; ${MAX_ECHO} of ${total} characters):\n\n${r.content.slice(0, MAX_ECHO)}`;
      },
    };
  }
  m = t.match(SET);
  if (m) {
    const key = m[1];
    return {
      tool: "update_state",
      args: { key, value: parseValue(m[2]) },
      reply: (r) => ("error" in r ? `I couldn't set **${key}**: ${r.error}` : `Done — **${key}** is now ${code(r.value)}.`),
    };
  }
  m = t.match(GET);
  if (m) {
    const key = m[1];
    return {
      tool: "load_state",
      args: { key },
      reply: (r) => ("value" in r ? `**${key}** is ${code(r.value)}.` : `I don't have a value for **${key}** yet.`),
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

async function recap(ctx: InvocationContext): Promise<string> {
  const said = userTexts(await ctx.history(), ctx.invocationId);
  if (said.length === 0) return "This is the start of our conversation — nothing to recap yet.";
  return `Here is what you said so far:\n\n${said.map((s, i) => `${i + 1}. ${s.replace(/\s+/g, " ")}`).join("\n")}`;
}

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

/** Streams `text` word by word (a few words at a time when it is long), then emits it as one final event. */
async function* streamText(text: string, signal: AbortSignal): AsyncGenerator<AgentOutput> {
  const delay = wordDelay();
  for (const chunk of chunks(text)) {
    if (signal.aborted) return;
    yield { type: "text-delta", text: chunk };
    await sleep(delay, signal);
  }
  if (!signal.aborted) yield { type: "event", parts: [{ text }] };
}

export const demoAgent: Agent = {
  name: DEMO_AGENT,
  description: "An offline demo agent: sets and reads state, saves and loads files, keeps a todo list, recaps the conversation.",
  mcp: [BUILTIN_TODOS],
  async *run(ctx): AsyncGenerator<AgentOutput, void, CallResponses | undefined> {
    const intent = parseIntent(eventText(ctx.userEvent));
    if ("help" in intent) return yield* streamText(HELP, ctx.signal);
    if ("recap" in intent) return yield* streamText(await recap(ctx), ctx.signal);
    // Resumed after the user decided on its call: the runtime made (or refused) it, the reply is what is left.
    const response =
      ctx.resumed?.responses[0] ??
      (yield { type: "calls", calls: [{ id: `adk-${randomUUID()}`, name: intent.tool, args: intent.args }] })?.[0];
    yield* streamText(intent.reply(response ?? {}), ctx.signal);
  },
};
