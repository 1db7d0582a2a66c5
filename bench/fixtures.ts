import { appendEvents, createSession, rewindSession, saveArtifact, saveTask } from "@/lib/db/queries";
import { newInvocationId } from "@/lib/session/rewind";
import type { AdkEvent, ArtifactDelta, StateDelta } from "@/lib/session/types";
import type { Task } from "@/lib/task/types";

const event = (invocationId: string, author: string, text: string, state: StateDelta = {}, artifacts: ArtifactDelta = {}): AdkEvent => ({
  id: crypto.randomUUID(),
  invocation_id: invocationId,
  author,
  timestamp: Date.now() / 1000,
  content: { role: author === "user" ? "user" : "model", parts: [{ text }] },
  actions: { state_delta: state, artifact_delta: artifacts },
});

const task = (sessionId: string, invocationId: string): Task => ({
  kind: "task",
  id: crypto.randomUUID(),
  contextId: sessionId,
  status: { state: "completed" },
  metadata: { kagent_invocation_id: invocationId, kagent_agent: "demo" },
});

/**
 * A session of `invocations` turns: a user event and an agent event with a state delta each, a file
 * version every 50 turns, a task per turn, and every 100 turns an edit (a rewind before the last turn and
 * a new sibling of it): 100 rewind markers at 10,000 turns.
 */
export async function buildSession(userId: string, invocations: number, name = `bench ${invocations}`) {
  const session = await createSession(userId, { name, state: { started: true } });
  const ids: string[] = [];
  const edited: { original: string; sibling: string }[] = [];
  const BATCH = 100;
  for (let start = 0; start < invocations; start += BATCH) {
    const events: AdkEvent[] = [];
    const batch: string[] = [];
    for (let i = start; i < Math.min(start + BATCH, invocations); i++) {
      const id = newInvocationId();
      batch.push(id);
      let artifacts: ArtifactDelta = {};
      if (i % 50 === 0) {
        const saved = await saveArtifact(userId, session.id, {
          filename: `file-${i % 200}.txt`,
          mimeType: "text/plain",
          data: Buffer.from(`v at ${i}`),
        });
        artifacts = { [saved.filename]: saved.version };
      }
      events.push(
        event(id, "user", `message ${i}`),
        event(id, "demo", `reply ${i}`, { counter: i, [`key${i % 20}`]: { turn: i } }, artifacts),
      );
    }
    await appendEvents(userId, session.id, events);
    for (const id of batch) await saveTask(userId, session.id, task(session.id, id));
    const last = batch.at(-1) as string;
    await rewindSession(userId, session.id, last, "edit");
    const sibling = newInvocationId();
    await appendEvents(userId, session.id, [
      event(sibling, "user", `message ${start + batch.length - 1}, edited`),
      event(sibling, "demo", "reply"),
    ]);
    await saveTask(userId, session.id, task(session.id, sibling));
    ids.push(...batch.slice(0, -1), sibling);
    edited.push({ original: last, sibling });
  }
  return { sessionId: session.id, invocationIds: ids, edited };
}

/**
 * One more invocation: a user event, three agent events and its task. `streamed` stores it the way
 * the runtime does while a reply streams (each event and each task update on its own); otherwise as
 * an API client would (one batch of events, one task).
 */
export async function appendInvocation(userId: string, sessionId: string, i: number, streamed: boolean) {
  const id = newInvocationId();
  const user = event(id, "user", `extra ${i}`);
  const agent = [event(id, "demo", "calling"), event(id, "demo", "result", { extra: i }), event(id, "demo", `done ${i}`)];
  const t = task(sessionId, id);
  if (!streamed) {
    await appendEvents(userId, sessionId, [user, ...agent]);
    await saveTask(userId, sessionId, t);
    return;
  }
  await appendEvents(userId, sessionId, [user]);
  await saveTask(userId, sessionId, t);
  for (const e of agent) await appendEvents(userId, sessionId, [e]);
  await saveTask(userId, sessionId, t);
}
