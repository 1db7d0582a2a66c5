import { attachmentsOf } from "@/lib/session/attachments";
import { eventText } from "@/lib/session/names";
import type { AdkEvent } from "@/lib/session/types";

/** The most events of effective history an agent is given (rewound events never included): a turn's cost must not grow with the chat. */
export const CONTEXT_EVENTS = 400;

/** What the user said in `events`, in order, leaving out one invocation (usually the current one), with the files each message attached. */
export function userTexts(events: readonly AdkEvent[], exceptInvocationId?: string): string[] {
  return events
    .filter((e) => e.author === "user" && e.invocation_id !== exceptInvocationId)
    .map((e) => {
      const files = attachmentsOf(e).map((f) => f.filename);
      return [eventText(e), files.length ? `[attached: ${files.join(", ")}]` : ""].filter(Boolean).join(" ");
    })
    .filter(Boolean);
}

/** `read`, run on the first call only: a turn reads its history once, when its agent first asks. */
export function once<T>(read: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => {
    result ??= read();
    return result;
  };
}
