/**
 * What a share link lets out of a chat's events: the user's text, the agent's text, tool calls with their
 * results only when shared, the session state they set and, when shared, the files they record and the user's
 * attachments. Nothing else
 * — no `user:` or `app:` state, no images or other parts the page does not show, no fields an API client
 * added. The link's page is built from it on the server, and "Continue from here" copies exactly it.
 */
import { type Attachment, attachmentOf, attachmentPart, attachmentsOf } from "@/lib/session/attachments";
import { splitDelta, USER_PREFIX } from "@/lib/session/state";
import type { AdkEvent, ArtifactDelta, Part } from "@/lib/session/types";

export interface SharedTurn {
  id: string;
  user: string | null;
  /** The files the user's message attached (when the link shares files). */
  attachments: Attachment[];
  agent: Part[];
}

/** What the sharer let in besides the conversation's text. */
export interface Shared {
  includeTools: boolean;
  includeFiles: boolean;
}

function shownPart(part: Part, author: string, { includeTools, includeFiles }: Shared): Part | null {
  if (typeof part.text === "string") return part.thought === true ? { text: part.text, thought: true } : { text: part.text };
  const attachment = author === "user" && includeFiles ? attachmentOf(part) : null;
  if (attachment) return attachmentPart(attachment);
  if (!includeTools || author === "user") return null;
  if (part.function_call) {
    const { id, name, args } = part.function_call;
    return { function_call: { id, name, args } };
  }
  if (part.function_response) {
    const { id, name, response } = part.function_response;
    return { function_response: { id, name, response } };
  }
  return null;
}

/** The event as a link shows it; null when it shows nothing of it (an image alone, a tool call not shared). */
export function sharedEvent(event: AdkEvent, shared: Shared): AdkEvent | null {
  const parts = (event.content?.parts ?? []).flatMap((part): Part[] => {
    const shown = shownPart(part, event.author, shared);
    return shown ? [shown] : [];
  });
  const state = splitDelta(event.actions?.state_delta).session;
  const files: ArtifactDelta = {};
  if (shared.includeFiles) {
    for (const [filename, version] of Object.entries(event.actions?.artifact_delta ?? {})) {
      if (!filename.startsWith(USER_PREFIX)) files[filename] = version;
    }
  }
  const interrupted = event.interrupted === true;
  if (parts.length === 0 && Object.keys(state).length === 0 && Object.keys(files).length === 0 && !interrupted) return null;
  return {
    id: event.id,
    invocation_id: event.invocation_id,
    author: event.author,
    timestamp: event.timestamp,
    ...(parts.length ? { content: { role: event.author === "user" ? "user" : "model", parts } } : {}),
    actions: { state_delta: state, artifact_delta: files },
    ...(event.turn_complete === true ? { turn_complete: true } : {}),
    ...(interrupted ? { interrupted: true } : {}),
  };
}

/** The shared events (`sharedEvent`'s) as the page's turns: each user message with the agent's parts after it. */
export function sharedTurns(events: AdkEvent[]): SharedTurn[] {
  const turns: SharedTurn[] = [];
  for (const event of events) {
    let turn = turns.at(-1);
    if (turn?.id !== event.invocation_id) {
      turn = { id: event.invocation_id, user: null, attachments: [], agent: [] };
      turns.push(turn);
    }
    const parts = event.content?.parts ?? [];
    if (event.author === "user") {
      turn.user = parts.map((p) => p.text ?? "").join("");
      turn.attachments = attachmentsOf(event);
    } else turn.agent.push(...parts);
  }
  return turns.filter((t) => t.user || t.attachments.length > 0 || t.agent.length > 0);
}
