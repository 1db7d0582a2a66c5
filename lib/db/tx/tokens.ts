/**
 * The daily token budget (docs/semantics.md, "Quotas"): a counter on the user's row, read when a turn begins
 * (after the row is locked) and charged in the transaction that ends the turn, so every instance sees one count.
 */
import { sql } from "drizzle-orm";
import { config } from "@/lib/config";
import { QuotaExceededError } from "@/lib/errors";
import { one, run, type Statement } from "../database";

const DAY_MS = 86_400_000;

/** The UTC day a time falls on, as days since the epoch: what the counter counts in. */
export const tokenDay = (at = Date.now()) => Math.floor(at / DAY_MS);

/** The tokens the user's turns used today, for a turn's begin batch; none to read without a budget. */
export const tokensToday = (userId: string): Statement<{ used: number } | undefined> | null =>
  config().limits.tokensPerDay === undefined
    ? null
    : one<{ used: number }>(sql`
        SELECT CASE WHEN tokens_day = ${tokenDay()} THEN tokens_used ELSE 0 END AS used FROM users WHERE id = ${userId}`);

/** Refuses a turn (429) once the user's turns have used the day's budget. */
export function checkTokenBudget(today: { used: number } | undefined | null): void {
  const limit = config().limits.tokensPerDay;
  if (limit !== undefined && Number(today?.used ?? 0) >= limit) {
    throw new QuotaExceededError(`the ${limit} tokens a day your turns may use are used up; the budget starts again at 00:00 UTC`);
  }
}

/**
 * Refuses a turn (429) past the turns a user may run at once: one under a daily token budget, since every turn
 * running when the budget is reached may pass it (so at most one does), else RETRACE_MAX_CONCURRENT_TURNS.
 */
export function checkTurnsAtOnce(running: { n: number } | undefined | null): void {
  const { concurrentTurns, tokensPerDay } = config().limits;
  const n = Number(running?.n ?? 0);
  if (tokensPerDay !== undefined && n >= 1) {
    throw new QuotaExceededError("under the daily token budget your turns run one at a time: wait for the running one to end");
  }
  if (n >= concurrentTurns) throw new QuotaExceededError(`more than ${concurrentTurns} turns running at once`);
}

/** Adds tokens to the user's count for `day` (today): a count of an earlier day starts over from them. */
export const chargeTokens = (userId: string, tokens: number, day = tokenDay()) =>
  run(sql`
    UPDATE users SET tokens_used = CASE WHEN tokens_day = ${day} THEN tokens_used + ${tokens} ELSE ${tokens} END, tokens_day = ${day}
    WHERE id = ${userId}`);
