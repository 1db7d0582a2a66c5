import { afterEach, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/connection";
import { listEvents } from "@/lib/db/queries";
import { checkInvariants } from "@/lib/db/tx/invariants";
import { sharedDatabase, startMutator } from "./support/processes";

const WORKERS = 4;
const OPERATIONS = 60;

describe("concurrency", () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  it("appends, rewinds and forks from several processes serialise cleanly; readers never see half a rewind", async () => {
    const db = await sharedDatabase();
    cleanup = db.cleanup;
    const workers = Array.from({ length: WORKERS }, () => startMutator(db.env, db.userId, db.sessionId, OPERATIONS));
    let reads = 0;
    let running = true;
    const allExited = Promise.all(workers.map((w) => w.exited)).finally(() => {
      running = false;
    });
    // Each check reads one snapshot, which must always be consistent.
    while (running) {
      expect(await checkInvariants(await getDb())).toEqual([]);
      reads += 1;
      await new Promise((r) => setTimeout(r, 25));
    }
    for (const { code, stderr } of await allExited) expect({ code, stderr }).toEqual({ code: 0, stderr: "" });

    const appended = workers.flatMap((w) => w.lines.filter((l) => l.startsWith("event ")).map((l) => l.slice(6)));
    const stored = (await listEvents(db.userId, db.sessionId)).items.map((e) => e.id);
    expect(new Set(stored).size).toBe(stored.length);
    expect(stored.filter((id) => appended.includes(id)).sort()).toEqual([...appended].sort());
    expect(await checkInvariants(await getDb())).toEqual([]);
    expect(reads).toBeGreaterThan(0);
    console.log(
      `${WORKERS} processes × ${OPERATIONS} operations, ${appended.length} events appended, ${stored.length} stored, ${reads} consistent reads`,
    );
  }, 180_000);
});
