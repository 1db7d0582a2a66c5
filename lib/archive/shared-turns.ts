/**
 * What a share link's page is given: the shared version's turns with only what the sharer let out — the
 * user's text, the agent's text, and tool calls with their results only when shared. Built on the server, so
 * nothing else (state deltas, file references, tool arguments) ever reaches the reader's browser.
 */
import type { AdkEvent, Part } from "@/lib/session/types";

export interface SharedTurn {
  id: string;
  user: string | null;
  agent: Part[];
}

function keptPart(part: Part, includeTools: boolean): Part | null {
  if (typeof part.text === "string") return part.text.trim() ? { text: part.text } : null;
  if (!includeTools) return null;
  if (part.function_call) return { function_call: part.function_call };
  if (part.function_response) return { function_response: part.function_response };
  return null;
}

export function sharedTurns(events: AdkEvent[], includeTools: boolean): SharedTurn[] {
  const turns: SharedTurn[] = [];
  for (const event of events) {
    let turn = turns.at(-1);
    if (turn?.id !== event.invocation_id) {
      turn = { id: event.invocation_id, user: null, agent: [] };
      turns.push(turn);
    }
    const parts = event.content?.parts ?? [];
    if (event.author === "user") turn.user = parts.map((p) => p.text ?? "").join("");
    else {
      for (const part of parts) {
        const kept = keptPart(part, includeTools);
        if (kept) turn.agent.push(kept);
      }
    }
  }
  return turns.filter((t) => t.user || t.agent.length > 0);
}
