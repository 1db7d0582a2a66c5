import { listEvents } from "@/lib/db/queries";
import { eventText } from "@/lib/session/names";
import type { AdkEvent } from "@/lib/session/types";

/** The only way an agent reads its conversation: the effective history (SPEC §2.2), never raw events. */
export function buildAgentContext(userId: string, sessionId: string): AdkEvent[] {
  return listEvents(userId, sessionId, "effective");
}

/** What the user said in `events`, in order, leaving out one invocation (usually the current one). */
export function userTexts(events: readonly AdkEvent[], exceptInvocationId?: string): string[] {
  return events
    .filter((e) => e.author === "user" && e.invocation_id !== exceptInvocationId)
    .map(eventText)
    .filter(Boolean);
}
