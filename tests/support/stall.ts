/** What another user waits while a heavy request runs: the suite's stall check, and the hardening bench's. */
import { createSession, createUser, getSession } from "@/lib/db/queries";

/** No request of another user may wait longer than this for a heavy one (issue: hardening II). */
export const STALL_LIMIT_MS = 200;

/**
 * Runs `heavy` while another user reads their chat every 5 ms: how long `heavy` took, the longest such
 * read, timed from when it was due (a request that arrives while the event loop is busy waits too), and
 * how many reads were made (one read transaction each).
 */
export async function withProbe<T>(heavy: () => Promise<T>) {
  const probeUser = await createUser();
  const probeSession = (await createSession(probeUser, { name: "probe" })).id;
  let done = false;
  const waits: number[] = [];
  let probes = 0;
  const probing = (async () => {
    while (!done) {
      const due = performance.now() + 5;
      await new Promise((r) => setTimeout(r, 5));
      probes += 1;
      await getSession(probeUser, probeSession);
      waits.push(performance.now() - due);
    }
  })();
  const start = performance.now();
  let result: T;
  let ms: number;
  try {
    result = await heavy();
    ms = performance.now() - start;
  } finally {
    done = true;
    // The read that fell due while `heavy` held the event loop (SQLite's statements never yield) ends after it: it counts.
    await probing;
  }
  return { result, ms, worstMs: Math.max(0, ...waits), probes };
}
