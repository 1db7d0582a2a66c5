import { attachmentOf } from "@/lib/session/attachments";
import { toolMark } from "@/lib/session/tools";
import type { AdkEvent, Part } from "@/lib/session/types";
import type { Part as A2APart, Message, Task } from "@/lib/task/types";

const nonEmpty = (value: object | undefined) => (value && Object.keys(value).length ? value : undefined);

/** Where a chat's file version is read (`GET /api/sessions/{id}/artifacts/{filename}?version=`). */
const artifactPath = (sessionId: string, filename: string, version: number) =>
  `/api/sessions/${encodeURIComponent(sessionId)}/artifacts/${encodeURIComponent(filename)}?version=${version}`;

/**
 * An attachment as an A2A file part: the chat's route for its version as the URI, its size and hash in the
 * part's metadata; any other `file_data` with the URI it gives.
 */
function filePart(part: Part, contextId: string): A2APart | null {
  const attached = attachmentOf(part);
  if (attached) {
    return {
      kind: "file",
      file: { uri: artifactPath(contextId, attached.filename, attached.version), mimeType: attached.mime_type, name: attached.filename },
      metadata: { retrace_size: attached.size, retrace_sha256: attached.sha256, retrace_version: attached.version },
    };
  }
  const data = part.file_data as { file_uri?: unknown; mime_type?: unknown; display_name?: unknown } | undefined;
  if (typeof data?.file_uri !== "string") return null;
  const name = typeof data.display_name === "string" ? { name: data.display_name } : {};
  return {
    kind: "file",
    file: { uri: data.file_uri, ...(typeof data.mime_type === "string" ? { mimeType: data.mime_type } : {}), ...name },
  };
}

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
    } else {
      const file = filePart(part, contextId);
      if (file) parts.push(file);
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
    kagent_usage_metadata: event.usage_metadata ?? undefined,
    retrace_model: typeof event.custom_metadata?.retrace_model === "string" ? event.custom_metadata.retrace_model : undefined,
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
