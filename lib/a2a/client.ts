import { AgentCard, CancelTaskRequest, SendMessageRequest, type StreamResponse, SubscribeToTaskRequest } from "@a2a-js/sdk";
import { type Client, ClientFactory, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { V03PushNotificationSerializer } from "@a2a-js/sdk/compat/v0_3/server";
import type { Task, TaskStatusUpdateEvent } from "@/lib/task/types";

export type StreamEvent = Task | TaskStatusUpdateEvent;

/** A file a message attaches, by URL: an upload of the sender's, or an attachment of the chat (docs/api.md, "Sending messages"). */
export interface SentFile {
  url: string;
  filename: string;
  mediaType: string;
}

const newId = () =>
  typeof crypto.randomUUID === "function" ? crypto.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

/** Our own HTTP errors (401, 404, 415, …) carry `{error}`: show that message, not the transport's. */
async function fetchWithErrors(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (response.ok) return response;
  const body = await response.json().catch(() => null);
  throw new Error(body?.error ?? `Request failed (HTTP ${response.status})`);
}

const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl: fetchWithErrors })] });
const clients = new Map<string, Promise<Client>>();

/** The SDK's v1.0 client for an agent of this app: the card is known, so there is no discovery request. */
function clientFor(agent: string): Promise<Client> {
  let client = clients.get(agent);
  if (!client) {
    const url = `${window.location.origin}/api/a2a/${encodeURIComponent(agent)}`;
    const card = AgentCard.fromJSON({
      name: agent,
      supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
      capabilities: { streaming: true },
    });
    client = factory.createFromAgentCard(card);
    clients.set(agent, client);
  }
  return client;
}

/** The SDK's v1.0 → v0.3 translator (the one its v0.3 push notifications use): the UI renders v0.3 shapes. */
const serializer = new V03PushNotificationSerializer();
const toStreamEvent = (response: StreamResponse) => JSON.parse(serializer.serialize(response).body) as StreamEvent;

/**
 * The stream's tasks and status updates as the UI renders them. The artifact that closes a turn repeats the
 * reply its stored status update already brought (it is for clients such as kagent's UI): skipped.
 */
async function* streamEvents(responses: AsyncIterable<StreamResponse>): AsyncGenerator<StreamEvent> {
  for await (const response of responses) if (response.payload?.$case !== "artifactUpdate") yield toStreamEvent(response);
}

/** An error inside the stream arrives wrapped; its cause carries the server's message. */
const unwrap = (error: unknown) => (error instanceof Error && error.cause instanceof Error ? error.cause : error);

/** Sends a message with A2A `SendStreamingMessage` and yields each streamed task or status update. */
export async function* streamMessage(opts: {
  agent: string;
  text: string;
  contextId?: string;
  rewindBeforeInvocationId?: string;
  /** Why the rewind happens: an "Edit & resend" or a "Regenerate". */
  rewindReason?: "edit" | "regenerate";
  /** The chat's last turn as shown (null: none): the server refuses the send if it is no longer (docs/api.md). */
  lastInvocationId?: string | null;
  /** Which of the agent's models answers (`retrace_model`; its first when absent). */
  model?: string;
  files?: SentFile[];
  /** The user's decision on the calls task `taskId` waits for: kagent's decision data part (docs/api.md, "Tool approval"). */
  decision?: { taskId: string; data: Record<string, unknown> };
  signal?: AbortSignal;
}): AsyncGenerator<StreamEvent> {
  const metadata = {
    ...(opts.model ? { retrace_model: opts.model } : {}),
    ...(opts.rewindBeforeInvocationId
      ? { kagent_rewind_before_invocation_id: opts.rewindBeforeInvocationId, retrace_rewind_reason: opts.rewindReason }
      : {}),
    ...(opts.lastInvocationId !== undefined ? { retrace_last_invocation_id: opts.lastInvocationId } : {}),
  };
  const request = SendMessageRequest.fromJSON({
    message: {
      messageId: newId(),
      role: "ROLE_USER",
      parts: [...(opts.decision ? [{ data: opts.decision.data }] : []), ...(opts.text ? [{ text: opts.text }] : []), ...(opts.files ?? [])],
      contextId: opts.contextId,
      taskId: opts.decision?.taskId,
      metadata: Object.keys(metadata).length > 0 ? metadata : undefined,
    },
  });
  const client = await clientFor(opts.agent);
  try {
    yield* streamEvents(client.sendMessageStream(request, { signal: opts.signal }));
  } catch (error) {
    throw unwrap(error);
  }
}

/** Follows a running task (A2A `SubscribeToTask`): the task, the text streamed so far, then the rest; just the task when it has ended. */
export async function* resubscribeTask(agent: string, taskId: string, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
  const client = await clientFor(agent);
  try {
    yield* streamEvents(client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: taskId }), { signal }));
  } catch (error) {
    throw unwrap(error);
  }
}

/** Our machine code of a JSON-RPC error: in v1.0 `data` is a list holding an ErrorInfo, in v0.3 `{code}` (docs/api.md, "Errors"). */
function errorCode(error: unknown): unknown {
  const data = (error as { data?: unknown } | null)?.data;
  const details = (Array.isArray(data) ? data : [data]) as ({ code?: unknown; metadata?: { code?: unknown } } | null)[];
  return details.map((d) => d?.metadata?.code ?? d?.code).find((code) => typeof code === "string");
}

/** A send the server refused because the chat changed since the view it was sent from (docs/api.md). */
export const isHistoryChanged = (error: unknown) => errorCode(error) === "history_changed";

export async function cancelTask(agent: string, taskId: string): Promise<void> {
  const client = await clientFor(agent);
  await client.cancelTask(CancelTaskRequest.fromJSON({ id: taskId }));
}
