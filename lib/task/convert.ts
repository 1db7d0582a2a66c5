import { toolMark } from "@/lib/session/tools";
import type { AdkEvent } from "@/lib/session/types";
import type { Part as A2APart, Message, Task } from "@/lib/task/types";

const nonEmpty = (value: object | undefined) => (value && Object.keys(value).length ? value : undefined);

/** One ADK event as an A2A message, carrying kagent's invocation and author metadata. */
export function eventToMessage(event: AdkEvent, contextId: string, taskId: string): Message {
  const parts: A2APart[] = [];
  const longRunning = new Set(Array.isArray(event.long_running_tool_ids) ? (event.long_running_tool_ids as string[]) : []);
  // An MCP call that acts in the world, and whether its response reached it (docs/api.md, "Tool calls").
  const mark = toolMark(event);
  const external = mark?.external
    ? { retrace_external: true, ...(mark.executed !== undefined ? { retrace_executed: mark.executed } : {}) }
    : {};
  for (const part of event.content?.parts ?? []) {
    if (part.text !== undefined) parts.push({ kind: "text", text: part.text });
    else if (part.function_call) {
      const waits = part.function_call.id !== undefined && longRunning.has(part.function_call.id) ? { kagent_is_long_running: true } : {};
      parts.push({ kind: "data", data: { ...part.function_call }, metadata: { kagent_type: "function_call", ...waits, ...external } });
    } else if (part.function_response) {
      parts.push({ kind: "data", data: { ...part.function_response }, metadata: { kagent_type: "function_response", ...external } });
    } else if (part.inline_data) {
      parts.push({ kind: "file", file: { bytes: part.inline_data.data, mimeType: part.inline_data.mime_type } });
    }
  }
  const isUser = event.author === "user";
  const metadata: Record<string, unknown> = {
    kagent_invocation_id: event.invocation_id,
    kagent_event_id: event.id,
    ...(isUser ? {} : { kagent_author: event.author }),
    kagent_state_delta: nonEmpty(event.actions?.state_delta),
    kagent_artifact_delta: nonEmpty(event.actions?.artifact_delta),
    kagent_interrupted: event.interrupted || undefined,
    kagent_error: event.error_message ?? undefined,
  };
  return {
    kind: "message",
    messageId: event.id,
    role: isUser ? "user" : "agent",
    parts: parts.length || !event.error_message ? parts : [{ kind: "text", text: event.error_message }],
    contextId,
    taskId,
    metadata: Object.fromEntries(Object.entries(metadata).filter(([, v]) => v !== undefined)),
  };
}

export function messageText(message: Pick<Message, "parts">): string {
  return message.parts.map((p) => (p.kind === "text" ? p.text : "")).join("");
}

/** A text-only agent message, for status updates such as a failure. */
export function agentNote(text: string, contextId: string, taskId: string, metadata: Record<string, unknown>): Message {
  return { kind: "message", messageId: crypto.randomUUID(), role: "agent", parts: [{ kind: "text", text }], contextId, taskId, metadata };
}

/** The tasks' histories, in order: the conversation a client should show. */
export function joinHistories(tasks: Task[]): Message[] {
  return tasks.flatMap((t) => t.history ?? []);
}
