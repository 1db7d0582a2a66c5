/**
 * The chat's map (docs/semantics.md, "The map"): every turn of its log with its parent, user text, name and
 * pin, whether the chat shows it now, and the chats branching off it. One read, linear in the chat's turns:
 * the log through its pieces, the labels and forks by the chat's id.
 */
import type { ChatTree } from "@/lib/session/tree";
import { getDb } from "./connection";
import { requireSession } from "./tx/sessions";
import { treeOf } from "./tx/tree";

/** The chat's map, for its owner. */
export async function readTree(userId: string, sessionId: string): Promise<ChatTree> {
  const db = await getDb();
  return db.read(async (tx) => {
    const row = await requireSession(tx, userId, sessionId);
    return treeOf(tx, row);
  });
}
