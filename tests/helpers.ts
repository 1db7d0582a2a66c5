import { randomUUID } from "node:crypto";
import { getAgent } from "@/lib/agent/registry";
import { cancelTurn, startTurn } from "@/lib/agent/runtime";
import {
  appendEvents,
  createSession,
  createUser,
  getSession,
  getTask,
  listArtifacts,
  listEvents,
  listTasks,
  rewindSession,
  saveArtifact,
  saveTask,
} from "@/lib/db/queries";
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

/** A finished task for `invocationId`, as a turn would store it. */
export const completedTask = (sessionId: string, invocationId: string) => ({
  kind: "task" as const,
  id: `task-${invocationId}`,
  contextId: sessionId,
  status: { state: "completed" as const },
  metadata: { kagent_invocation_id: invocationId },
});

/** One turn of a session: the user's text and an agent event setting `step`, plus its task. */
export async function sendTurn(f: { userId: string; sessionId: string }, id: string, text = id) {
  await appendEvents(f.userId, f.sessionId, [event(id, { author: "user", text }), event(id, { text: `re ${text}`, state: { step: id } })]);
  await saveTask(f.userId, f.sessionId, { ...completedTask(f.sessionId, id), id: `task-${f.sessionId}-${id}` });
}

/**
 * The reference vector (docs/semantics.md, "Versions"): send A, B; edit B → M1, send B2; regenerate B2 → M2,
 * send B3 with B2's text. `text` names each turn's user text.
 */
export async function referenceChat(text = (id: string) => id) {
  const f = await fixture();
  await sendTurn(f, "A", text("A"));
  await sendTurn(f, "B", text("B"));
  const m1 = (await rewindSession(f.userId, f.sessionId, "B", "edit")).event.invocation_id;
  await sendTurn(f, "B2", text("B2"));
  const m2 = (await rewindSession(f.userId, f.sessionId, "B2", "regenerate")).event.invocation_id;
  await sendTurn(f, "B3", text("B2"));
  return { f, m1, m2 };
}

export const texts = (events: AdkEvent[]) => events.map((e) => e.content?.parts?.[0]?.text);

/** A user with one session; `append` and `save` act on it. */
export async function fixture(state: State = {}, agent?: string) {
  const userId = await createUser();
  const session = await createSession(userId, { name: "Test chat", state, agent });
  return {
    userId,
    sessionId: session.id,
    append: (...events: AdkEvent[]) => appendEvents(userId, session.id, events),
    save: (filename: string, text: string) =>
      saveArtifact(userId, session.id, { filename, mimeType: "text/plain", data: Buffer.from(text) }),
  };
}

export type Fixture = Awaited<ReturnType<typeof fixture>>;

/** Keeps a session busy with a running demo-agent turn until `stop()` (which cancels it). */
export async function holdTurn(f: { userId: string; sessionId: string }) {
  const previous = process.env.DEMO_WORD_DELAY_MS;
  process.env.DEMO_WORD_DELAY_MS = "1000";
  const turn = await startTurn({ userId: f.userId, sessionId: f.sessionId, agent: getAgent("demo"), text: "hello there" });
  return {
    taskId: turn.taskId,
    async stop() {
      await cancelTurn(f.userId, turn.taskId);
      if (previous === undefined) delete process.env.DEMO_WORD_DELAY_MS;
      else process.env.DEMO_WORD_DELAY_MS = previous;
    },
  };
}

/** Everything a reader of the chat sees, ids included, but not its source's name (gone when the source is deleted). */
export async function chatView(userId: string, sessionId: string) {
  const tasks = (await listTasks(userId, sessionId, { includeRewound: true })).items;
  const { forked_from_name: _name, ...session } = await getSession(userId, sessionId);
  return {
    session,
    events: (await listEvents(userId, sessionId)).items,
    effective: (await listEvents(userId, sessionId, "effective")).items,
    tasks,
    byId: await Promise.all(tasks.map((t) => getTask(userId, t.id))),
    files: await listArtifacts(userId, sessionId),
  };
}
