import { afterEach, describe, expect, it } from "vitest";
import { setDb } from "@/lib/db/connection";
import { listEvents } from "@/lib/db/queries";
import { openSqlite } from "@/lib/db/sqlite";
import { checkInvariants } from "@/lib/db/tx/invariants";
import { sharedDatabase, startMutator } from "./support/processes";

/** CRASH_CYCLES=200 npx vitest run --project sqlite tests/crash.test.ts for the long run. */
const CYCLES = Number(process.env.CRASH_CYCLES ?? 12);

describe("crash safety", () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  it(`a process killed with SIGKILL mid-mutation leaves a consistent database that kept every commit (${CYCLES} cycles)`, async () => {
    const db = await sharedDatabase();
    cleanup = db.cleanup;
    let committed: string[] = [];
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const worker = startMutator(db.env, db.userId, db.sessionId, "forever");
      // Let it start (tsx load, migrations check) and mutate for a random while, then kill it.
      await worker.waitFor("event ");
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 280));
      worker.child.kill("SIGKILL");
      expect((await worker.exited).signal).toBe("SIGKILL");
      committed = [...committed, ...worker.lines.filter((l) => l.startsWith("event ")).map((l) => l.slice(6))];
      const reopened = openSqlite(db.env.DATABASE_PATH);
      setDb(reopened);
      expect(await checkInvariants(reopened)).toEqual([]);
      // Every event a worker reported after its commit survived the kill.
      const stored = new Set((await listEvents(db.userId, db.sessionId)).items.map((e) => e.id));
      expect(committed.filter((id) => !stored.has(id))).toEqual([]);
    }
    console.log(`${CYCLES} kill cycles, ${committed.length} committed events reported before the kills, all present after`);
  }, 600_000);
});
