/** The store's operations, called directly (no HTTP), on one bench session. */
import { deleteSession, forkSession, listEvents, listTasks, listVersions, rewindSession, switchSession } from "@/lib/db/queries";
import { appendInvocation, type buildSession } from "./fixtures";
import { median, middle } from "./measure";
import type { Results } from "./results";

export type Built = Awaited<ReturnType<typeof buildSession>> & { size: string };

/** `a` then `b`, `runs` times after a warm-up pair: the two medians. */
export async function alternate(runs: number, a: () => Promise<unknown>, b: () => Promise<unknown>) {
  const first: number[] = [];
  const second: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const start = performance.now();
    await a();
    const between = performance.now();
    await b();
    if (i === 0) continue;
    first.push(between - start);
    second.push(performance.now() - between);
  }
  return [middle(first), middle(second)];
}

export async function storeBench(results: Results, runs: number, userId: string, s: Built) {
  const { sessionId, invocationIds, edited, size } = s;
  const middleId = invocationIds[Math.floor(invocationIds.length / 2)];
  let marker = "";
  const [rewind, undo] = await alternate(
    runs,
    async () => {
      marker = (await rewindSession(userId, sessionId, middleId)).event.invocation_id;
    },
    () => rewindSession(userId, sessionId, marker, "undo"),
  );
  results.record("store: rewind before middle", size, rewind, "≤ 25 ms");
  results.record("store: undo that rewind", size, undo);
  const forks: string[] = [];
  results.record(
    "store: fork before middle",
    size,
    await median(runs, async () => forks.push((await forkSession(userId, sessionId, { invocationId: middleId })).id)),
    "≤ 150 ms",
  );
  // A fork reads its source's rows through its pieces (lib/db/tx/log.ts): its pages cost what the source's do.
  results.record("store: last page of 50 tasks, in a fork", size, await median(runs, () => listTasks(userId, forks[0], { limit: 50 })));
  for (const id of forks) await deleteSession(userId, id);
  const branch = edited[Math.floor(edited.length / 2)];
  const [switchOld, switchBack] = await alternate(
    runs,
    () => switchSession(userId, sessionId, branch.original),
    () => switchSession(userId, sessionId, branch.sibling),
  );
  results.record("store: switch version (and back)", size, (switchOld + switchBack) / 2, "≤ 50 ms (HTTP)");
  results.record("store: list versions", size, await median(runs, () => listVersions(userId, sessionId)), "≤ 20 ms (HTTP)");
  results.record("store: append one invocation", size, await median(runs, (i) => appendInvocation(userId, sessionId, i, false)), "≤ 2 ms");
  results.record("store: append, streamed event by event", size, await median(runs, (i) => appendInvocation(userId, sessionId, i, true)));
  results.record("store: last page of 50 tasks", size, await median(runs, () => listTasks(userId, sessionId, { limit: 50 })));
  const before = await cursorHalfWay(userId, sessionId, invocationIds.length);
  results.record("store: a page of 50 tasks mid-chat", size, await median(runs, () => listTasks(userId, sessionId, { limit: 50, before })));
  results.record(
    "store: last page of 50 effective events",
    size,
    await median(runs, () => listEvents(userId, sessionId, "effective", { limit: 50 })),
  );
  results.record("store: all tasks", size, await median(Math.min(runs, 5), () => listTasks(userId, sessionId)));
}

/** The cursor of the page half way up the chat, found the way a client scrolling up would. */
async function cursorHalfWay(userId: string, sessionId: string, tasks: number) {
  let before: string | undefined;
  for (let seen = 0; seen < tasks / 2; seen += 50) {
    before = (await listTasks(userId, sessionId, { limit: 50, before })).nextBefore ?? before;
  }
  return before;
}
