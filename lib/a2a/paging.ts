import { countTasks, listTasks } from "@/lib/db/queries";

/**
 * A page of a session's effective tasks, as the REST API pages them: the last `limit` before the
 * `before` cursor, in chronological order, with the cursor of the page before it, and how many there are.
 */
export async function pageTasks(userId: string, sessionId: string, page: { limit: number; before?: string }) {
  const [tasks, total] = await Promise.all([listTasks(userId, sessionId, page), countTasks(userId, sessionId)]);
  return { items: tasks.items, nextBefore: tasks.nextBefore, total };
}
