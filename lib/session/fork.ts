import { randomUUID } from "node:crypto";

const MESSAGE_ID = /"kind":"message","messageId":"(?:[^"\\]|\\.)*"/g;

/**
 * A task copied into a fork (SPEC §2.3 step 6): a new task id, a new id for every message, the fork
 * as context. It edits the stored JSON text, matching our own key order and the old ids exactly, so
 * a long fork never parses and re-serialises every task.
 */
export function copyTaskJson(json: string, ids: { taskId: string; from: string; to: string }): { id: string; json: string } {
  const id = randomUUID();
  const copied = json
    .replace(`"id":"${ids.taskId}"`, `"id":"${id}"`)
    .replaceAll(`"taskId":"${ids.taskId}"`, `"taskId":"${id}"`)
    .replaceAll(`"contextId":"${ids.from}"`, `"contextId":"${ids.to}"`)
    .replace(MESSAGE_ID, () => `"kind":"message","messageId":"${randomUUID()}"`);
  return { id, json: copied };
}
