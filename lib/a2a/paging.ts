import { listTasks } from "@/lib/db/queries";
import { ValidationError } from "@/lib/errors";
import type { Task } from "./types";

const cursorOf = (task: Task) => Buffer.from(task.id).toString("base64url");

/**
 * A page of a session's effective tasks, as the REST API pages them (SPEC §4.2): the last `limit`
 * before the `before` cursor, in chronological order, with the cursor of the page before it. Pages in
 * memory for now; when the store pages itself (issue 16) this becomes one store call.
 */
export async function pageTasks(userId: string, sessionId: string, page: { limit: number; before?: string }) {
  const tasks = await listTasks(userId, sessionId);
  const end = page.before === undefined ? tasks.length : tasks.findIndex((t) => cursorOf(t) === page.before);
  if (end < 0) throw new ValidationError("The page token is not one this server gave out");
  const start = Math.max(0, end - page.limit);
  return { items: tasks.slice(start, end), nextBefore: start > 0 ? cursorOf(tasks[start]) : null, total: tasks.length };
}
