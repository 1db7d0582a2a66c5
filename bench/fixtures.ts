import type { Task } from "@a2a-js/sdk";
import { demoAgent } from "@/lib/agent/demo-agent";
import { startTurn } from "@/lib/agent/runtime";
import { appendEvents, createSession, saveArtifact, saveTask } from "@/lib/db/queries";
import { newInvocationId } from "@/lib/session/rewind";
import type { AdkEvent, ArtifactDelta, StateDelta } from "@/lib/session/types";

const event = (invocationId: string, author: string, text: string, state: StateDelta = {}, artifacts: ArtifactDelta = {}): AdkEvent => ({
  id: crypto.randomUUID(),
  invocation_id: invocationId,
  author,
  timestamp: Date.now() / 1000,
  content: { role: author === "user" ? "user" : "model", parts: [{ text }] },
  actions: { state_delta: state, artifact_delta: artifacts },
});

const task = (sessionId: string, invocationId: string, history: AdkEvent[]): Task => ({
  kind: "task",
  id: crypto.randomUUID(),
  contextId: sessionId,
  status: { state: "completed" },
  history: history.map((e) => ({
    kind: "message",
    messageId: e.id,
    role: e.author === "user" ? "user" : "agent",
    parts: [{ kind: "text", text: e.content!.parts![0].text! }],
    metadata: { kagent_invocation_id: invocationId },
  })),
  metadata: { kagent_invocation_id: invocationId },
});

/**
 * A session of `invocations` turns as SPEC §5 describes: a user event and an agent event with a
 * state delta each, a file version every 50 turns, and one task per invocation.
 */
export async function buildSession(userId: string, invocations: number) {
  const session = await createSession(userId, { name: `bench ${invocations}`, state: { started: true } });
  const ids: string[] = [];
  const BATCH = 250;
  for (let start = 0; start < invocations; start += BATCH) {
    const events: AdkEvent[] = [];
    const tasks: Task[] = [];
    for (let i = start; i < Math.min(start + BATCH, invocations); i++) {
      const id = newInvocationId();
      ids.push(id);
      let artifacts: ArtifactDelta = {};
      if (i % 50 === 0) {
        const saved = await saveArtifact(userId, session.id, {
          filename: `file-${i % 200}.txt`,
          mimeType: "text/plain",
          data: Buffer.from(`v at ${i}`),
        });
        artifacts = { [saved.filename]: saved.version };
      }
      const turn = [
        event(id, "user", `message ${i}`),
        event(id, "bench", `reply ${i}`, { counter: i, [`key${i % 20}`]: { turn: i } }, artifacts),
      ];
      events.push(...turn);
      tasks.push(task(session.id, id, turn));
    }
    await appendEvents(userId, session.id, events);
    for (const t of tasks) await saveTask(userId, session.id, t);
  }
  return { sessionId: session.id, invocationIds: ids };
}

/**
 * One more invocation: a user event, three agent events and its task. `streamed` stores it the way
 * the runtime does while a reply streams (each event and each task update on its own); otherwise as
 * an API client would (one batch of events, one task).
 */
export async function appendInvocation(userId: string, sessionId: string, i: number, streamed: boolean) {
  const id = newInvocationId();
  const user = event(id, "user", `extra ${i}`);
  const agent = [event(id, "bench", "calling"), event(id, "bench", "result", { extra: i }), event(id, "bench", `done ${i}`)];
  if (!streamed) {
    await appendEvents(userId, sessionId, [user, ...agent]);
    await saveTask(userId, sessionId, task(sessionId, id, [user, ...agent]));
    return;
  }
  await appendEvents(userId, sessionId, [user]);
  const t = task(sessionId, id, [user]);
  await saveTask(userId, sessionId, t);
  for (const e of agent) await appendEvents(userId, sessionId, [e]);
  await saveTask(userId, sessionId, { ...task(sessionId, id, [user, ...agent]), id: t.id });
}

/** A chat of real demo-agent turns (tool call, result, reply), for the browser benchmark. */
export async function buildChat(userId: string, turns: number) {
  process.env.DEMO_WORD_DELAY_MS = "0";
  const session = await createSession(userId, { name: `${turns}-turn chat` });
  for (let i = 0; i < turns; i++) {
    const text = i % 2 === 0 ? `set counter to ${i}` : `what is counter?`;
    await (await startTurn({ userId, sessionId: session.id, agent: demoAgent, text })).done;
  }
  return session.id;
}
