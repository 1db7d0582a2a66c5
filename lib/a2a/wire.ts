import type { Message as CoreMessage, Task as CoreTask, StreamResponse } from "@a2a-js/sdk";
import { legacyPushNotificationToV1StreamResponse } from "@a2a-js/sdk/compat/v0_3";
import type { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from "@/lib/task/types";

/**
 * Retrace's v0.3-shaped objects as the SDK's v1.0 objects, by the SDK's own v0.3 → v1.0 translator; its
 * transports then write them as v1.0 JSON, or translate them back for v0.3 callers.
 */
export function toStreamResponse(event: Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent): StreamResponse {
  return legacyPushNotificationToV1StreamResponse(event);
}

export function toCoreTask(task: Task): CoreTask {
  const { payload } = toStreamResponse(task);
  if (payload?.$case !== "task") throw new Error("Not a task");
  return payload.value;
}

/** The text a user message carries. */
export function coreMessageText(message: CoreMessage): string {
  return message.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
}
