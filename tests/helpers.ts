import { randomUUID } from "node:crypto";
import { appendEvents, createSession, createUser, saveArtifact } from "@/lib/db/queries";
import type { AdkEvent, ArtifactDelta, State, StateDelta } from "@/lib/session/types";

export function event(
  invocationId: string,
  opts: { author?: string; text?: string; state?: StateDelta; artifacts?: ArtifactDelta; rewind?: string } = {},
): AdkEvent {
  const author = opts.author ?? "agent";
  return {
    id: randomUUID(),
    invocation_id: invocationId,
    author,
    timestamp: 1_700_000_000,
    content: opts.text === undefined ? undefined : { role: author === "user" ? "user" : "model", parts: [{ text: opts.text }] },
    actions: {
      state_delta: opts.state ?? {},
      artifact_delta: opts.artifacts ?? {},
      ...(opts.rewind ? { rewind_before_invocation_id: opts.rewind } : {}),
    },
  };
}

export const texts = (events: AdkEvent[]) => events.map((e) => e.content?.parts?.[0]?.text);

/** A user with one session; `append` and `save` act on it. */
export function fixture(state: State = {}) {
  const userId = createUser();
  const session = createSession(userId, { name: "Test chat", state });
  return {
    userId,
    sessionId: session.id,
    append: (...events: AdkEvent[]) => appendEvents(userId, session.id, events),
    save: (filename: string, text: string) =>
      saveArtifact(userId, session.id, { filename, mimeType: "text/plain", data: Buffer.from(text) }),
  };
}
