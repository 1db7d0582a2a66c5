import type { Message, Task, TaskStatusUpdateEvent } from "@a2a-js/sdk";

export type StreamEvent = Task | TaskStatusUpdateEvent;

const newId = () =>
  typeof crypto.randomUUID === "function" ? crypto.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

async function rpc(agent: string, method: string, params: unknown, signal?: AbortSignal): Promise<Response> {
  const response = await fetch(`/api/a2a/${encodeURIComponent(agent)}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: newId(), method, params }),
    signal,
  });
  if (!response.ok) {
    const body = await response.json().catch(() => null);
    throw new Error(body?.error ?? `Request failed (HTTP ${response.status})`);
  }
  return response;
}

function unwrap<T>(envelope: { result?: T; error?: { message: string } }): T {
  if (envelope.error) throw new Error(envelope.error.message);
  return envelope.result as T;
}

/** Sends a message with A2A `message/stream` and yields each streamed task or status update. */
export async function* streamMessage(opts: {
  agent: string;
  text: string;
  contextId?: string;
  rewindBeforeInvocationId?: string;
  /** Why the rewind happens: an "Edit & resend" or a "Regenerate". */
  rewindReason?: "edit" | "regenerate";
  signal?: AbortSignal;
}): AsyncGenerator<StreamEvent> {
  const message: Message = {
    kind: "message",
    role: "user",
    messageId: newId(),
    parts: opts.text ? [{ kind: "text", text: opts.text }] : [],
    ...(opts.contextId ? { contextId: opts.contextId } : {}),
    ...(opts.rewindBeforeInvocationId
      ? { metadata: { kagent_rewind_before_invocation_id: opts.rewindBeforeInvocationId, retrace_rewind_reason: opts.rewindReason } }
      : {}),
  };
  yield* events(await rpc(opts.agent, "message/stream", { message }, opts.signal));
}

/** Follows a running task with A2A `tasks/resubscribe`: the task, its text so far, then its updates (just the task once it ended). */
export async function* resubscribeTask(agent: string, taskId: string, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
  yield* events(await rpc(agent, "tasks/resubscribe", { id: taskId }, signal));
}

/** The tasks and status updates of a JSON-RPC server-sent event stream. */
async function* events(response: Response): AsyncGenerator<StreamEvent> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      if (data) yield unwrap<StreamEvent>(JSON.parse(data));
    }
  }
}

export async function cancelTask(agent: string, taskId: string): Promise<void> {
  const response = await rpc(agent, "tasks/cancel", { id: taskId });
  unwrap(await response.json());
}
