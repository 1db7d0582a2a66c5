import { listEvents } from "@/lib/db/queries";
import type { AdkEvent } from "@/lib/session/types";

/** The only way an agent reads its conversation: the effective history (SPEC §2.2), never raw events. */
export function buildAgentContext(userId: string, sessionId: string): AdkEvent[] {
  return listEvents(userId, sessionId, "effective");
}
