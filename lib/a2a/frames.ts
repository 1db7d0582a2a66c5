import { StreamResponse } from "@a2a-js/sdk";
import { V03PushNotificationSerializer } from "@a2a-js/sdk/compat/v0_3/server";
import type { Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from "@/lib/task/types";
import { toStreamResponse, withOrigin } from "./wire";

/** What a turn's stream yields, in Retrace's v0.3 shapes (lib/a2a/turns.ts). */
export type TurnEvent = Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent;

type RpcId = string | number | null;

/** Who reads a stream: the JSON-RPC request's id, its dialect, and the origin its file URLs are made absolute at. */
export interface Reader {
  id: RpcId;
  legacy: boolean;
  origin: string;
}

// The SDK's own v1.0 → v0.3 translator (`toCompatStreamResponse`'s result, which the SDK does not export).
const v03 = new V03PushNotificationSerializer();

/**
 * A v0.3 frame as kagent reads it: the status update that pauses a turn for the user's decision (input-required)
 * ends its stream, so it says `final: true`; the SDK's translation says so only of the terminal states.
 */
function pauseIsFinal(result: { kind?: string; status?: { state?: string }; final?: boolean }) {
  if (result.kind === "status-update" && result.status?.state === "input-required") result.final = true;
  return result;
}

/**
 * A streamed chunk's status update (`metadata.adk_partial`, lib/agent/live.ts) as the JSON-RPC result the SDK's
 * transports would write for it, built directly: one per token, where the SDK's round trip (v0.3 → v1.0 → v0.3,
 * with a structured clone of each metadata) costs more than the rest of the frame. Its message always has the
 * task's ids and metadata, and only a text part, so none of the SDK's omissions of empty fields apply, nor
 * `withOrigin`. tests/lib-a2a-frames.test.ts holds it to the SDK's bytes.
 */
function partialResult(event: TaskStatusUpdateEvent, legacy: boolean) {
  const { status, taskId, contextId, metadata } = event;
  const message = status.message as NonNullable<typeof status.message>;
  const text = (message.parts[0] as { text: string }).text;
  if (legacy) {
    return {
      kind: "status-update",
      taskId,
      contextId,
      status: {
        state: "working",
        message: {
          kind: "message",
          messageId: message.messageId,
          role: "agent",
          parts: [{ kind: "text", text }],
          contextId: message.contextId,
          taskId: message.taskId,
          metadata: message.metadata,
        },
        timestamp: status.timestamp,
      },
      final: false,
      metadata,
    };
  }
  return {
    statusUpdate: {
      taskId,
      contextId,
      status: {
        state: "TASK_STATE_WORKING",
        message: {
          messageId: message.messageId,
          contextId: message.contextId,
          taskId: message.taskId,
          role: "ROLE_AGENT",
          parts: [{ text }],
          metadata: message.metadata,
        },
        timestamp: status.timestamp,
      },
      metadata,
    },
  };
}

/** A partial status update of the shape lib/agent/live.ts builds (anything else takes the SDK's way). */
function isPartial(event: TurnEvent): event is TaskStatusUpdateEvent {
  if (event.kind !== "status-update" || event.final || event.status.state !== "working" || !event.metadata) return false;
  const message = event.status.message;
  return (
    message?.metadata?.adk_partial === true &&
    message.role === "agent" &&
    message.parts.length === 1 &&
    message.parts[0].kind === "text" &&
    !message.parts[0].metadata &&
    !message.extensions &&
    !message.referenceTaskIds &&
    !!message.contextId &&
    !!message.taskId &&
    !!event.status.timestamp
  );
}

/**
 * One stream event as the JSON-RPC envelope of its SSE frame, exactly as the SDK's transport of the reader's
 * dialect writes it (v1.0: `StreamResponse` JSON; v0.3: translated back), with file parts' URLs absolute.
 */
export function frameOf(event: TurnEvent, reader: Reader): object {
  const { id, legacy } = reader;
  if (isPartial(event)) {
    const result = partialResult(event, legacy);
    return legacy ? { id, jsonrpc: "2.0", result } : { jsonrpc: "2.0", id, result };
  }
  const response = withOrigin(toStreamResponse(event), reader.origin);
  if (!legacy) return { jsonrpc: "2.0", id, result: StreamResponse.toJSON(response) };
  return { id, jsonrpc: "2.0", result: pauseIsFinal(JSON.parse(v03.serialize(response).body)) };
}
