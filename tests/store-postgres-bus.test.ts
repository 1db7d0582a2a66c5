/** The bus between app instances on PostgreSQL: pieces that fit NOTIFY, and a LISTEN that survives a restart. */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as health from "@/app/api/health/route";
import type { BusMessage, TurnBus } from "@/lib/db/bus";
import { closeDb, setDb } from "@/lib/db/connection";
import { openPostgres } from "@/lib/db/postgres";
import { cutByBytes, postgresBus } from "@/lib/db/postgres-bus";
import { startPostgres, type TestPostgres } from "../scripts/test-postgres";

describe("streamed text in NOTIFY-sized pieces", () => {
  it("cuts by the bytes of its JSON, never inside a surrogate pair, and loses nothing", () => {
    const text = `${"\u0001".repeat(1500)}${"😀".repeat(300)}${"é".repeat(200)}plain`;
    const runs = cutByBytes(text, 1000);
    expect(runs.join("")).toBe(text);
    for (const run of runs) {
      expect(Buffer.byteLength(JSON.stringify(run))).toBeLessThanOrEqual(1002);
      expect(run.isWellFormed()).toBe(true);
    }
    expect(cutByBytes("short", 1000)).toEqual(["short"]);
    expect(cutByBytes("", 1000)).toEqual([""]);
  });
});

describe.runIf(process.env.TEST_DIALECT === "postgres")("two instances' buses on one PostgreSQL", () => {
  let server: TestPostgres;
  let pools: pg.Pool[] = [];
  let buses: TurnBus[] = [];
  beforeAll(async () => {
    server = await startPostgres();
    pools = [new pg.Pool({ connectionString: server.url }), new pg.Pool({ connectionString: server.url })];
    for (const pool of pools) pool.on("error", () => undefined);
    buses = await Promise.all(pools.map((pool) => postgresBus(server.url, pool)));
  });
  afterAll(async () => {
    await Promise.all(buses.map((bus) => bus.close()));
    await Promise.all(pools.map((pool) => pool.end()));
    server.stop();
  });

  /** What instance B hears of task `taskId` until `until` says it heard enough. */
  function hear(taskId: string, until: (heard: BusMessage[]) => boolean) {
    const heard: BusMessage[] = [];
    return new Promise<BusMessage[]>((resolve) => {
      const stop = buses[1].subscribe(taskId, (message) => {
        heard.push(message);
        if (until(heard)) {
          stop();
          resolve(heard);
        }
      });
    });
  }

  it("a chunk of any size reaches the other instance whole", async () => {
    const text = `${"\u0007".repeat(2032)}${"語".repeat(3000)}`;
    const length = (heard: BusMessage[]) => heard.reduce((n, m) => n + (m.kind === "partial" ? m.text.length : 0), 0);
    const heard = hear("big", (h) => length(h) >= text.length);
    await buses[0].publish("big", { kind: "partial", epoch: 0, offset: 0, text });
    const pieces = (await heard).filter((m) => m.kind === "partial").sort((a, b) => a.offset - b.offset);
    expect(pieces.map((m) => m.text).join("")).toBe(text);
  });

  it("after a 5 s restart of PostgreSQL, LISTEN comes back by itself; health says degraded meanwhile", async () => {
    const db = await openPostgres(server.url, 2);
    setDb(db);
    try {
      expect((await health.GET()).status).toBe(200);
      const restarted = server.restart(5_000);
      await expect.poll(() => buses[1].listening(), { timeout: 5_000 }).toBe(false);
      const during = await health.GET();
      expect(during.status).toBe(503);
      await restarted;
      const back = Date.now();
      await expect.poll(() => buses.every((bus) => bus.listening()) && db.bus.listening(), { timeout: 10_000 }).toBe(true);
      const heard = hear("after", (h) => h.length > 0);
      await buses[0].publish("after", { kind: "cancel" });
      expect(await heard).toEqual([{ kind: "cancel" }]);
      await expect.poll(async () => (await health.GET()).status, { timeout: 5_000 }).toBe(200);
      console.log(`LISTEN was back ${Date.now() - back} ms after PostgreSQL came back up`);
    } finally {
      await closeDb();
    }
  }, 40_000);
});
