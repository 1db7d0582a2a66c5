import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { checkInvariants } from "@/lib/db/invariants";
import { fileDatabase, startMutator } from "./support/processes";

/** CRASH_CYCLES=200 npm run test:unit -- tests/crash.test.ts for the long run. */
const CYCLES = Number(process.env.CRASH_CYCLES ?? 12);

describe("crash safety (SPEC §5)", () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  it(`a process killed with SIGKILL mid-mutation leaves a consistent database (${CYCLES} cycles)`, async () => {
    const db = fileDatabase();
    cleanup = db.cleanup;
    db.raw().close();
    let committed = 0;
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const worker = startMutator(db.file, db.userId, db.sessionId, "forever");
      // Let it start (tsx load, migrations check) and mutate for a random while, then kill it.
      while (!worker.lines.some((l) => l.startsWith("event "))) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 280));
      worker.child.kill("SIGKILL");
      const { signal } = await worker.exited;
      expect(signal).toBe("SIGKILL");
      committed += worker.lines.length;
      const reopened = new Database(db.file);
      expect(checkInvariants(reopened)).toEqual([]);
      reopened.close();
    }
    console.log(`${CYCLES} kill cycles, ${committed} committed events reported before the kills`);
  }, 600_000);
});
