import { randomUUID } from "node:crypto";
import type { Message, Task } from "@a2a-js/sdk";

/** A task copied into a fork: new task and message ids, the fork as its context (SPEC §2.3 step 6). */
export function copyTask(task: Task, contextId: string): Task {
  const id = randomUUID();
  const copyMessage = (m: Message): Message => ({ ...m, messageId: randomUUID(), contextId, taskId: id });
  return {
    ...task,
    id,
    contextId,
    history: task.history?.map(copyMessage),
    status: task.status.message ? { ...task.status, message: copyMessage(task.status.message) } : task.status,
  };
}
