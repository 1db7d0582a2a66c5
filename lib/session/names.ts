import type { AdkEvent } from "./types";

/** The built-in offline agent (docs/semantics.md, "The demo agent"): always present, the default for new chats. */
export const DEMO_AGENT = "demo";

/** The name of a chat that has no visible user message yet. */
export const NEW_CHAT = "New chat";

const MAX_AUTO_NAME = 40;

/** The longest name a chat may have, in UTF-16 code units (what a JavaScript string's length counts). */
export const MAX_CHAT_NAME = 200;

/** A fork's default name, held to the rule a chosen name follows: a chain of forks does not grow it without bound. */
export function forkName(sourceName: string): string {
  const name = `Fork of ${sourceName}`;
  if (name.length <= MAX_CHAT_NAME) return name;
  // Cut before the ellipsis, never between the halves of a surrogate pair.
  const cut = name.slice(0, MAX_CHAT_NAME - 1).replace(/[\uD800-\uDBFF]$/, "");
  return `${cut.trimEnd()}…`;
}

/** A chat's automatic name: the first line of its first visible user message, shortened. */
export function autoName(text: string): string {
  const line = text.trim().split("\n")[0].trim();
  return line.length > MAX_AUTO_NAME ? `${line.slice(0, MAX_AUTO_NAME).trim()}…` : line || NEW_CHAT;
}

/** The text parts of an event, joined. */
export function eventText(event: AdkEvent): string {
  return event.content?.parts?.map((p) => p.text ?? "").join("") ?? "";
}
