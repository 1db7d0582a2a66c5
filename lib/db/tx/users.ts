/** The user's row: created on first use, locked before counting, touched (activity, bytes) and checked against the quota. */
import { sql } from "drizzle-orm";
import { config } from "@/lib/config";
import { QuotaExceededError } from "@/lib/errors";
import { type Dialect, type Executor, run } from "../database";

/** Browsers hold signed guest ids before they write anything; the row appears with their first chat. */
export const ensureUser = (userId: string) =>
  run(sql`INSERT INTO users (id, created_at) VALUES (${userId}, ${Date.now()}) ON CONFLICT (id) DO NOTHING`);

/** Holds the user's row until the transaction ends (PostgreSQL), so two requests cannot both pass a quota check. */
export const lockUser = (dialect: Dialect, userId: string) => run(sql`SELECT id FROM users WHERE id = ${userId} ${dialect.forUpdate}`);

/**
 * Records a write to one of the user's chats: the next value of the user's activity clock and `bytes` more (or
 * fewer) stored bytes. The clock reads the time in milliseconds, or one past its last value when that is not
 * earlier (two writes in one millisecond, an instance whose clock lags): the chat list is ordered by it, most
 * recent first, and never ties. Returns the user's new `activity` and `stored_bytes`; `checkQuota` then
 * refuses the write past the quota.
 */
export const userTouch = (userId: string, bytes = 0) => {
  const now = Date.now();
  return sql`
    UPDATE users SET activity = CASE WHEN activity >= ${now} THEN activity + 1 ELSE ${now} END, stored_bytes = stored_bytes + ${bytes}
    WHERE id = ${userId} RETURNING activity, stored_bytes`;
};

/** Activity values read at a time when looking for a free one. */
const FREE_WINDOW = 64;

/**
 * The latest activity value at or before `at` (milliseconds) that none of the user's other chats has: where a
 * chat goes that was last active then (an imported one, or one a merge would tie), so the list stays in time
 * order and total. The caller holds the user's row (`lockUser`), so no other write takes the same value.
 */
export async function freeActivity(tx: Executor, userId: string, sessionId: string, at: number): Promise<number> {
  for (let top = Math.floor(at); ; top -= FREE_WINDOW) {
    const taken = await tx.all<{ activity: number }>(sql`
      SELECT activity FROM sessions WHERE user_id = ${userId} AND id <> ${sessionId} AND activity <= ${top} AND activity > ${top - FREE_WINDOW}`);
    const used = new Set(taken.map((r) => Number(r.activity)));
    for (let value = top; value > top - FREE_WINDOW; value--) if (!used.has(value)) return value;
  }
}

/** Keeps the user's clock at or past `activity`, a value a chat took outside `userTouch`: the next write comes after it. */
export const clockPast = (userId: string, activity: number) =>
  run(sql`UPDATE users SET activity = CASE WHEN activity < ${activity} THEN ${activity} ELSE activity END WHERE id = ${userId}`);

export interface UserTouched {
  activity: number;
  stored_bytes: number;
}

export function checkQuota(userId: string, touched: UserTouched | undefined, bytes: number): asserts touched is UserTouched {
  if (!touched) throw new Error(`user ${userId} has no row`);
  const limit = config().limits.storedBytes;
  if (bytes > 0 && touched.stored_bytes > limit) throw new QuotaExceededError(`more than ${limit} bytes stored`);
}

const chargeChat = (id: string, bytes: number) => run(sql`UPDATE sessions SET stored_bytes = stored_bytes + ${bytes} WHERE id = ${id}`);

/**
 * Bytes a write stored in a chat outside an append (a file, a share link, an imported task), charged to the chat
 * and its owner, whose quota may refuse them (the owner's clock moves, as with any write of theirs).
 */
export async function charge(tx: Executor, row: { id: string; user_id: string }, bytes: number) {
  if (bytes === 0) return;
  await touchUser(tx, row.user_id, bytes);
  await tx.batch([chargeChat(row.id, bytes)]);
}

/** `charge`'s statements for a batch, unchecked: for what may not be refused (a running turn's task) and refunds. */
export const chargeInBatch = (row: { id: string; user_id: string }, bytes: number) => [
  chargeChat(row.id, bytes),
  run(sql`UPDATE users SET stored_bytes = stored_bytes + ${bytes} WHERE id = ${row.user_id}`),
];

/** `userTouch` and `checkQuota` on their own: resolves with the user's new activity. */
export async function touchUser(tx: Executor, userId: string, bytes = 0): Promise<number> {
  const touched = await tx.one<UserTouched>(userTouch(userId, bytes));
  checkQuota(userId, touched, bytes);
  return touched.activity;
}

/** Refuses, before anything is copied, a write of `bytes` more than the user's quota leaves room for. */
export async function assertRoom(tx: Executor, userId: string, bytes: number): Promise<void> {
  const user = await tx.one<{ stored_bytes: number }>(sql`SELECT stored_bytes FROM users WHERE id = ${userId}`);
  const limit = config().limits.storedBytes;
  if (Number(user?.stored_bytes ?? 0) + bytes > limit) throw new QuotaExceededError(`more than ${limit} bytes stored`);
}
