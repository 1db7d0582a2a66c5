import { sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getAgent } from "@/lib/agent/registry";
import { startTurn } from "@/lib/agent/runtime";
import { mergeGuest } from "@/lib/db/accounts";
import { getDb } from "@/lib/db/connection";
import { createSession, createUser } from "@/lib/db/queries";
import { tokenDay } from "@/lib/db/tx/tokens";
import { usageOf } from "@/lib/session/usage";
import type { Task } from "@/lib/task/types";
import { fixture } from "./helpers";
import { snapshot } from "./support/api";
import { sharedDatabase, startProcess } from "./support/processes";

const demo = getAgent("demo");

beforeEach(() => {
  process.env.DEMO_WORD_DELAY_MS = "0";
});
afterEach(() => {
  delete process.env.RETRACE_MAX_TOKENS_PER_DAY;
  delete process.env.DEMO_WORD_DELAY_MS;
});

const turn = (userId: string, sessionId: string | undefined, text = "tell me what you can do") =>
  startTurn({ userId, sessionId, agent: demo, text });
const tokensOf = (task: Task) => usageOf(task.metadata?.kagent_usage_metadata)?.total_token_count ?? 0;

async function counter(userId: string) {
  const db = await getDb();
  const row = await db.one<{ tokens_day: number; tokens_used: number }>(
    sql`SELECT tokens_day, tokens_used FROM users WHERE id = ${userId}`,
  );
  return { day: Number(row?.tokens_day), used: Number(row?.tokens_used) };
}

describe("the daily token budget (RETRACE_MAX_TOKENS_PER_DAY)", () => {
  it("counts what each turn's task reports; once the day's budget is used, a turn is refused (429) and writes nothing", async () => {
    const f = await fixture();
    const first = await (await turn(f.userId, f.sessionId)).done;
    process.env.RETRACE_MAX_TOKENS_PER_DAY = String(tokensOf(first) + 1);
    expect(await counter(f.userId)).toEqual({ day: tokenDay(), used: tokensOf(first) });
    // Under the budget: the turn starts, though it will end over it (its usage is known only then).
    const second = await (await turn(f.userId, f.sessionId)).done;
    expect(await counter(f.userId)).toEqual({ day: tokenDay(), used: tokensOf(first) + tokensOf(second) });
    const before = await snapshot();
    await expect(turn(f.userId, f.sessionId)).rejects.toMatchObject({
      status: 429,
      code: "quota_exceeded",
      message: expect.stringMatching(/tokens a day/),
    });
    await expect(turn(f.userId, undefined)).rejects.toMatchObject({ code: "quota_exceeded" }); // nor a new chat
    expect(await snapshot()).toEqual(before);
    // A new day starts from nothing.
    await (await getDb()).run(sql`UPDATE users SET tokens_day = ${tokenDay() - 1} WHERE id = ${f.userId}`);
    const next = await (await turn(f.userId, f.sessionId)).done;
    expect(await counter(f.userId)).toEqual({ day: tokenDay(), used: tokensOf(next) });
  });

  it("under a budget a user's turns run one at a time (429 while one runs), so at most one turn goes over", async () => {
    process.env.RETRACE_MAX_TOKENS_PER_DAY = "1";
    process.env.DEMO_WORD_DELAY_MS = "10";
    const userId = await createUser();
    const chats: string[] = [];
    for (let i = 0; i < 3; i++) chats.push((await createSession(userId, { name: `chat ${i}` })).id);
    const running = await turn(userId, chats[0]);
    await expect(turn(userId, chats[1])).rejects.toMatchObject({ code: "quota_exceeded", message: expect.stringMatching(/one at a time/) });
    const ended = await running.done;
    expect(ended.status.state).toBe("completed");
    expect((await counter(userId)).used).toBe(tokensOf(ended));
    await expect(turn(userId, chats[2])).rejects.toMatchObject({ code: "quota_exceeded", message: expect.stringMatching(/used up/) });
  });

  it("holds across app instances: one turn at a time, one turn goes over and then every instance refuses; a second turn at once is refused", async () => {
    const db = await sharedDatabase();
    try {
      process.env.RETRACE_MAX_TOKENS_PER_DAY = "1";
      process.env.DEMO_WORD_DELAY_MS = "10";
      const env = { ...db.env, RETRACE_MAX_TOKENS_PER_DAY: "1", DEMO_WORD_DELAY_MS: "10" };
      const here = (await createSession(db.userId, { name: "here" })).id;
      // The other instance's turn began under the budget and ended over it: the one turn over.
      const first = startProcess("turn-runner.ts", env, [db.userId, db.sessionId]);
      expect(await first.waitFor("ended ")).toBe("ended completed");
      const over = (await counter(db.userId)).used;
      expect(over).toBeGreaterThan(1);
      // This instance reads the same row: refused, and so is the other instance, and nothing more is counted.
      await expect(turn(db.userId, here)).rejects.toMatchObject({ code: "quota_exceeded" });
      const refused = startProcess("turn-runner.ts", env, [db.userId, db.sessionId]);
      expect((await refused.exited).stderr).toMatch(/quota_exceeded|Quota exceeded/);
      expect((await counter(db.userId)).used).toBe(over);

      // A new day: while the other instance's turn runs, this instance's is refused (one at a time), so again
      // only that one turn can go over.
      await (await getDb()).run(sql`UPDATE users SET tokens_day = ${tokenDay() - 1} WHERE id = ${db.userId}`);
      const other = startProcess("turn-runner.ts", env, [db.userId, db.sessionId]);
      await other.waitFor("started ");
      await expect(turn(db.userId, here)).rejects.toMatchObject({
        code: "quota_exceeded",
        message: expect.stringMatching(/one at a time/),
      });
      expect(await other.waitFor("ended ")).toBe("ended completed");
      expect((await counter(db.userId)).used).toBeGreaterThan(1);
      await expect(turn(db.userId, here)).rejects.toMatchObject({ code: "quota_exceeded", message: expect.stringMatching(/used up/) });
    } finally {
      db.cleanup();
    }
    // Four app processes start: slow on a busy machine.
  }, 90_000);

  it("a guest's tokens today go with it into the account it signs in to", async () => {
    const guest = await fixture();
    const task = await (await turn(guest.userId, guest.sessionId)).done;
    const account = await createUser();
    await (await getDb()).run(sql`UPDATE users SET tokens_day = ${tokenDay()}, tokens_used = 5 WHERE id = ${account}`);
    await mergeGuest(guest.userId, account);
    expect(await counter(account)).toEqual({ day: tokenDay(), used: 5 + tokensOf(task) });
  });
});
