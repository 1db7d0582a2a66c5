import { listEvents } from "@/lib/db/queries";
import { eventText } from "@/lib/session/names";
import type { AdkEvent } from "@/lib/session/types";

/** The most events of effective history an agent is given: a turn's cost must not grow with the chat. */
const CONTEXT_EVENTS = 400;

/**
 * The only way an agent reads its conversation: the effective history (rewound events never
 * included), its last CONTEXT_EVENTS events.
 */
export async function buildAgentContext(userId: string, sessionId: string): Promise<AdkEvent[]> {
  return (await listEvents(userId, sessionId, "effective", { limit: CONTEXT_EVENTS })).items;
}

/** What the user said in `events`, in order, leaving out one invocation (usually the current one). */
export function userTexts(events: readonly AdkEvent[], exceptInvocationId?: string): string[] {
  return events
    .filter((e) => e.author === "user" && e.invocation_id !== exceptInvocationId)
    .map(eventText)
    .filter(Boolean);
}
