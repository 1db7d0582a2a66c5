import type { FilePart, ImagePart, ModelMessage, TextPart } from "ai";
import { attachmentKey, attachmentsOf } from "@/lib/session/attachments";
import { REQUEST_CONFIRMATION } from "@/lib/session/tools";
import type { AdkEvent, Json } from "@/lib/session/types";

/** What a model is given for one attachment (lib/agent/attachments.ts): the image, the PDF, its text, or a note. */
export type ModelFile = TextPart | ImagePart | FilePart;

/**
 * The model's view of a conversation, built from effective-history events only: user text with the files it
 * attached (`files`, by `attachmentKey`), assistant text and tool calls, and tool results, in order. ADK's
 * confirmation calls are the app's business, not the model's, and a call no result answers (one that waited when
 * the chat moved on) is left out, as chat APIs refuse a call without its result.
 */
export function toModelMessages(events: readonly AdkEvent[], files: ReadonlyMap<string, ModelFile> = new Map()): ModelMessage[] {
  const messages: ModelMessage[] = [];
  const callIds = new Map<string, string[]>();
  let counter = 0;
  const agentParts = events.flatMap((e) => (e.author === "user" ? [] : (e.content?.parts ?? [])));
  const answered = new Set(agentParts.flatMap((p) => (p.function_response?.id ? [p.function_response.id] : [])));
  const unanswered = (id: string | undefined) => id !== undefined && !answered.has(id);

  for (const event of events) {
    const parts = event.content?.parts ?? [];
    if (event.author === "user") {
      const text = parts.map((p) => p.text ?? "").join("");
      const attached = attachmentsOf(event).map(
        (file): ModelFile => files.get(attachmentKey(file)) ?? { type: "text", text: `[Attached file ${file.filename}]` },
      );
      if (attached.length > 0) messages.push({ role: "user", content: [...(text ? [{ type: "text" as const, text }] : []), ...attached] });
      else if (text) messages.push({ role: "user", content: text });
      continue;
    }
    for (const part of parts) {
      if (part.text) {
        messages.push({ role: "assistant", content: [{ type: "text", text: part.text }] });
      } else if (part.function_call) {
        if (part.function_call.name === REQUEST_CONFIRMATION || unanswered(part.function_call.id)) continue;
        const id = part.function_call.id ?? `call_${counter++}`;
        const pending = callIds.get(part.function_call.name) ?? [];
        callIds.set(part.function_call.name, [...pending, id]);
        messages.push({
          role: "assistant",
          content: [{ type: "tool-call", toolCallId: id, toolName: part.function_call.name, input: part.function_call.args ?? {} }],
        });
      } else if (part.function_response) {
        const { name, response } = part.function_response;
        const pending = callIds.get(name) ?? [];
        const id = part.function_response.id ?? pending[0] ?? `call_${counter++}`;
        callIds.set(
          name,
          pending.filter((p) => p !== id),
        );
        messages.push({
          role: "tool",
          content: [{ type: "tool-result", toolCallId: id, toolName: name, output: { type: "json", value: (response ?? {}) as Json } }],
        });
      }
    }
  }
  return mergeAssistantTurns(messages);
}

/** Adjacent assistant messages become one, as chat APIs expect text and tool calls together. */
function mergeAssistantTurns(messages: ModelMessage[]): ModelMessage[] {
  const merged: ModelMessage[] = [];
  for (const message of messages) {
    const previous = merged.at(-1);
    if (
      previous?.role === "assistant" &&
      message.role === "assistant" &&
      Array.isArray(previous.content) &&
      Array.isArray(message.content)
    ) {
      previous.content = [...previous.content, ...message.content];
    } else if (previous?.role === "tool" && message.role === "tool") {
      previous.content = [...previous.content, ...message.content];
    } else {
      merged.push(message);
    }
  }
  return merged;
}
