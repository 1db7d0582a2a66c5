/** Reading the event log back: the raw log or the effective history, whole or a page at a time. */
import type { AdkEvent } from "@/lib/session/types";
import { getDb } from "./connection";
import type { Page, PageRequest } from "./paging";
import { readEvents } from "./tx/history";
import { requireSession } from "./tx/sessions";

export async function listEvents(
  userId: string,
  sessionId: string,
  view: "all" | "effective" = "all",
  page?: PageRequest,
): Promise<Page<AdkEvent>> {
  const db = await getDb();
  return db.read(async (tx) => readEvents(tx, await requireSession(tx, userId, sessionId), view, page));
}
