/**
 * A separate process that mutates one session through the real store: appends, rewinds (undo
 * included), forks, deletes of forks and file saves, in a random mix. Prints each appended event id
 * after its transaction commits, then "done". Used by the concurrency and crash tests.
 * Usage: node --import tsx --import ./scripts/server-context.mjs tests/support/mutator.ts <userId> <sessionId> <operations|forever>
 */
import { closeDb } from "@/lib/db/connection";
import { appendEvents, deleteSession, forkSession, listEvents, rewindSession, saveArtifact, saveTask } from "@/lib/db/queries";
import { ValidationError } from "@/lib/errors";
import { newInvocationId } from "@/lib/session/rewind";
import type { AdkEvent } from "@/lib/session/types";

const [userId, sessionId, count] = process.argv.slice(2);
const limit = count === "forever" ? Infinity : Number(count);
const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)];

async function turn(i: number) {
  const invocationId = newInvocationId();
  const event = (author: string, text: string, state = {}, artifacts = {}): AdkEvent => ({
    id: crypto.randomUUID(),
    invocation_id: invocationId,
    author,
    timestamp: Date.now() / 1000,
    content: { parts: [{ text }] },
    actions: { state_delta: state, artifact_delta: artifacts },
  });
  const file =
    Math.random() < 0.3
      ? await saveArtifact(userId, sessionId, {
          filename: `f${i % 3}.txt`,
          mimeType: "text/plain",
          data: Buffer.from(`${process.pid}:${i}`),
        })
      : null;
  const events = [
    event("user", `q${i}`),
    event("worker", `a${i}`, { [`k${i % 5}`]: i, [`p${process.pid}`]: i }, file ? { [file.filename]: file.version } : {}),
  ];
  await appendEvents(userId, sessionId, events);
  // Another process may fork the session between the two writes: a turn a fork shares is frozen (400).
  await saveTask(userId, sessionId, {
    kind: "task",
    id: crypto.randomUUID(),
    contextId: sessionId,
    status: { state: "completed" },
    metadata: { kagent_invocation_id: invocationId },
  }).catch((error: unknown) => {
    if (!(error instanceof ValidationError && error.message.endsWith("a fork shares it"))) throw error;
  });
  for (const e of events) console.log(`event ${e.id}`);
}

for (let i = 0; i < limit; i++) {
  const roll = Math.random();
  const events = (await listEvents(userId, sessionId)).items;
  if (roll < 0.55 || events.length === 0) await turn(i);
  else if (roll < 0.85) await rewindSession(userId, sessionId, pick(events).invocation_id);
  else if (roll < 0.95)
    await deleteSession(userId, (await forkSession(userId, sessionId, { invocationId: pick(events).invocation_id })).id);
  else await forkSession(userId, sessionId);
}
console.log("done");
await closeDb();
