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

/**
 * `value` (what a method answers, in the SDK's v1.0 objects) with the relative URLs Retrace gives file parts — a
 * chat's file route (lib/task/convert.ts) — made absolute at `origin`, the address the caller reached: a peer
 * fetches them with the token it sent. Parts are changed in place (they are built for this answer); data parts'
 * values are the agent's and the user's, never looked into.
 */
export function withOrigin<T>(value: T, origin: string): T {
  if (Array.isArray(value)) {
    for (const item of value) withOrigin(item, origin);
  } else if (value && typeof value === "object" && !ArrayBuffer.isView(value) && (value as { $case?: unknown }).$case !== "data") {
    const content = (value as { content?: { $case?: string; value?: unknown } }).content;
    if (content?.$case === "url" && typeof content.value === "string" && content.value.startsWith("/"))
      content.value = origin + content.value;
    for (const child of Object.values(value)) if (child && typeof child === "object") withOrigin(child, origin);
  }
  return value;
}

/** The text a user message carries. */
export function coreMessageText(message: CoreMessage): string {
  return message.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
}
