/** Appending events from outside a turn, in one transaction (the append itself: tx/append.ts; reading back: history.ts). */
import type { AdkEvent } from "@/lib/session/types";
import { getDb } from "./connection";
import { appendEventsTx, lookedUp } from "./tx/append";
import { claimRow } from "./tx/claim";
import { lookAhead } from "./tx/layout";
import { sessionOf } from "./tx/sessions";

/** At most this many events per append request: one request never holds the write lock for long. */
export const MAX_EVENTS_PER_APPEND = 1000;

/** Appends a batch in one transaction, from outside any turn (a running turn's own: appendTurnEvents). */
export async function appendEvents(userId: string, sessionId: string, input: AdkEvent[]) {
  const db = await getDb();
  return db.write(async (tx) => {
    const [found, ahead] = await tx.batch([sessionOf(tx.dialect, userId, sessionId, true), lookAhead(sessionId, lookedUp(input))]);
    return (await appendEventsTx(tx, await claimRow(tx, found), input, { ahead })).events;
  });
}
