/**
 * Accounts in the store: a guest's rows moving to an account (sign-in upgrades the guest), deleting an
 * account with everything it owns, and the account rows a trusted proxy or an invitation needs. An
 * account's id is a `users` id, so the rest of the store never tells accounts and guests apart.
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { AppError, SessionBusyError } from "@/lib/errors";
import { getDb } from "./connection";
import type { Executor } from "./database";
import { mergeBlobs } from "./tx/blobs";
import { ROW_BYTES } from "./tx/bytes";
import { ownerKey } from "./tx/search-index";
import { chargeTokens, tokenDay } from "./tx/tokens";
import { clockPast, ensureUser, freeActivity, lockUser } from "./tx/users";

/** What a merge moved, for the sign-in's answer and the tests. */
export interface MergeReport {
  sessions: number;
  stateKeys: number;
  /** `user:` keys both had: the account's value was kept. */
  stateConflicts: number;
  fileVersions: number;
  bytes: number;
}

const NOTHING: MergeReport = { sessions: 0, stateKeys: 0, stateConflicts: 0, fileVersions: 0, bytes: 0 };

class GuestIsAccountError extends AppError {
  constructor() {
    super(409, "guest_is_account", "This browser's guest id belongs to an account; reload the page and sign in again.");
  }
}

/** A turn still running in one of `userId`'s chats would go on writing under that id. */
async function refuseRunningTurns(tx: Executor, userId: string) {
  const running = await tx.one<{ id: string }>(sql`
    SELECT id FROM sessions WHERE user_id = ${userId} AND turn_task_id IS NOT NULL AND turn_lease_until > ${Date.now()} LIMIT 1`);
  if (running) throw new SessionBusyError();
}

const userScopePrefix = (userId: string) => `user/${userId}/`;

/** The merge's refusals, checked ahead of it (a sign-in checks them before it creates its session). */
export async function requireMergeable(guestId: string): Promise<void> {
  const db = await getDb();
  await db.read(async (tx) => {
    if (await tx.one(sql`SELECT id FROM auth_users WHERE id = ${guestId}`)) throw new GuestIsAccountError();
    await refuseRunningTurns(tx, guestId);
  });
}

/**
 * Moves every row the guest owns to the account, in one transaction (docs/api.md, "Accounts"): its chats
 * (forks and deleted chats whose rows forks share included; their events, invocations, tasks and
 * checkpoints hang off them), their files, its `user:` state and `user:` files, and its counters. Rules:
 * chats keep their activity (a clock: lib/db/tx/users.ts), so the list shows both devices' chats by when each
 * was last active, one of two that tie moved a millisecond back; a `user:` key both have keeps the account's
 * value; a `user:` file both have keeps
 * the account's versions 0..n and gets the guest's appended after them; stored bytes add up. The guest's
 * row is then deleted: nothing is left under its id. Refused (and nothing changed) when the guest id is an
 * account, or while a turn runs in one of the guest's chats.
 */
export async function mergeGuest(guestId: string, accountId: string): Promise<MergeReport> {
  if (guestId === accountId) return NOTHING;
  const db = await getDb();
  return db.write(async (tx) => {
    if (await tx.one(sql`SELECT id FROM auth_users WHERE id = ${guestId}`)) throw new GuestIsAccountError();
    await tx.batch([ensureUser(accountId)]);
    // Both rows locked in one order, so two merges into one account cannot deadlock each other.
    for (const id of [guestId, accountId].sort()) await tx.batch([lockUser(tx.dialect, id)]);
    const guest = await tx.one<{ activity: number; stored_bytes: number; tokens_day: number; tokens_used: number }>(
      sql`SELECT activity, stored_bytes, tokens_day, tokens_used FROM users WHERE id = ${guestId}`,
    );
    if (!guest) return NOTHING; // a guest that never wrote anything has no rows
    await refuseRunningTurns(tx, guestId);
    const sessions = await tx.run(sql`UPDATE sessions SET user_id = ${accountId} WHERE user_id = ${guestId}`);
    // Chats written in the same millisecond on the two devices would tie: one of each pair moves back.
    const ties = await tx.all<{ id: string; activity: number }>(sql`
      SELECT s.id, s.activity FROM sessions s WHERE s.user_id = ${accountId}
        AND EXISTS (SELECT 1 FROM sessions t WHERE t.user_id = ${accountId} AND t.activity = s.activity AND t.id < s.id)`);
    for (const tie of ties) {
      const activity = await freeActivity(tx, accountId, tie.id, Number(tie.activity));
      await tx.run(sql`UPDATE sessions SET activity = ${activity} WHERE id = ${tie.id}`);
    }
    // The search index keeps each row under its writer's key (lib/db/tx/search-index.ts): the account searches under the guest's too.
    if (sessions > 0) {
      await tx.run(sql`INSERT INTO search_keys (user_id, key) VALUES (${accountId}, ${ownerKey(guestId)}) ON CONFLICT DO NOTHING`);
      await tx.run(sql`
        INSERT INTO search_keys (user_id, key) SELECT ${accountId}, key FROM search_keys WHERE user_id = ${guestId} ON CONFLICT DO NOTHING`);
    }
    const { dropped, ...state } = await mergeUserState(tx, guestId, accountId);
    const fileVersions = await mergeUserFiles(tx, guestId, accountId);
    await tx.run(sql`UPDATE artifacts SET user_id = ${accountId} WHERE user_id = ${guestId}`);
    await mergeBlobs(tx, guestId, accountId);
    await tx.run(sql`UPDATE todos SET user_id = ${accountId} WHERE user_id = ${guestId}`);
    const bytes = Number(guest.stored_bytes) - dropped;
    await tx.batch([clockPast(accountId, Number(guest.activity))]);
    await tx.run(sql`UPDATE users SET stored_bytes = stored_bytes + ${bytes} WHERE id = ${accountId}`);
    // Tokens the guest used today count against the account's budget too: signing in starts no new day.
    if (Number(guest.tokens_day) === tokenDay() && Number(guest.tokens_used) > 0) {
      await tx.batch([chargeTokens(accountId, Number(guest.tokens_used))]);
    }
    await tx.run(sql`DELETE FROM users WHERE id = ${guestId}`);
    return { sessions, ...state, fileVersions, bytes };
  });
}

async function mergeUserState(tx: Executor, guestId: string, accountId: string) {
  const length = (column: string) => tx.dialect.byteLength(sql.raw(column));
  // The guest's values that lose to the account's are no longer stored: their bytes are given back.
  const counts = await tx.one<{ keys: number; conflicts: number; dropped: number | null }>(sql`
    SELECT COUNT(*) AS keys, COUNT(a.key) AS conflicts,
      SUM(CASE WHEN a.key IS NULL THEN 0 ELSE ${ROW_BYTES} + ${length("g.key")} + ${length("g.value")} END) AS dropped
    FROM user_state g
    LEFT JOIN user_state a ON a.user_id = ${accountId} AND a.agent = g.agent AND a.key = g.key
    WHERE g.user_id = ${guestId}`);
  await tx.run(sql`
    INSERT INTO user_state (user_id, agent, key, value) SELECT ${accountId}, agent, key, value FROM user_state WHERE user_id = ${guestId}
    ON CONFLICT (user_id, agent, key) DO NOTHING`);
  await tx.run(sql`DELETE FROM user_state WHERE user_id = ${guestId}`);
  return { stateKeys: Number(counts?.keys ?? 0), stateConflicts: Number(counts?.conflicts ?? 0), dropped: Number(counts?.dropped ?? 0) };
}

/** `user:` files move to the account's scope; a name the account has too continues its version numbers. */
async function mergeUserFiles(tx: Executor, guestId: string, accountId: string): Promise<number> {
  const from = userScopePrefix(guestId);
  const to = userScopePrefix(accountId);
  const files = await tx.all<{ scope: string; filename: string; versions: number }>(sql`
    SELECT scope, filename, COUNT(*) AS versions FROM artifacts WHERE user_id = ${guestId} AND session_id IS NULL
    GROUP BY scope, filename`);
  let moved = 0;
  for (const file of files) {
    const scope = to + file.scope.slice(from.length);
    // Offsets are read before the file moves: one statement updating and reading the same rows would see either.
    const next = await tx.one<{ v: number | null }>(
      sql`SELECT MAX(version) + 1 AS v FROM artifacts WHERE scope = ${scope} AND filename = ${file.filename}`,
    );
    await tx.run(sql`
      UPDATE artifacts SET scope = ${scope}, user_id = ${accountId}, version = version + ${Number(next?.v ?? 0)}
      WHERE scope = ${file.scope} AND filename = ${file.filename}`);
    moved += Number(file.versions);
  }
  return moved;
}

/**
 * Deletes the account and everything it owns in one transaction: its chats (with their events, tasks,
 * checkpoints and files), `user:` state and files, API tokens, devices (sign-in sessions), passkeys and
 * linked sign-in methods. Refused while a turn runs in one of its chats.
 */
export async function deleteAccount(accountId: string): Promise<void> {
  const db = await getDb();
  await db.write(async (tx) => {
    await tx.batch([lockUser(tx.dialect, accountId)]);
    await refuseRunningTurns(tx, accountId);
    await tx.run(sql`DELETE FROM auth_users WHERE id = ${accountId}`);
    await tx.run(sql`DELETE FROM users WHERE id = ${accountId}`);
  });
}

/**
 * Undoes a sign-up whose guest turned out not to be movable after its account was made (a reply started in
 * between): the new account with its sign-in rows, its `users` row, and the invitation it spent.
 */
export async function discardSignUp(accountId: string): Promise<void> {
  const db = await getDb();
  await db.write(async (tx) => {
    const account = await tx.one<{ email: string }>(sql`SELECT email FROM auth_users WHERE id = ${accountId}`);
    await tx.run(sql`DELETE FROM auth_users WHERE id = ${accountId}`);
    await tx.run(sql`DELETE FROM users WHERE id = ${accountId}`);
    if (account) await tx.run(sql`UPDATE invites SET used_at = NULL WHERE email = ${account.email}`);
  });
}

export interface Profile {
  id: string;
  name: string;
  email: string;
}

export async function accountProfile(userId: string): Promise<Profile | null> {
  const db = await getDb();
  return (await db.one<Profile>(sql`SELECT id, name, email FROM auth_users WHERE id = ${userId}`)) ?? null;
}

/**
 * The account a trusted proxy names (RETRACE_TRUSTED_USER_HEADER): found by its email, created on first
 * sight. A name that is not an email address gets one under the reserved `.invalid` domain.
 */
export const proxyEmail = (name: string) => (name.includes("@") ? name : `${name}@proxy.invalid`).toLowerCase();

export async function trustedAccount(name: string): Promise<string> {
  const email = proxyEmail(name);
  const db = await getDb();
  return db.write(async (tx) => {
    const now = new Date();
    await tx.run(sql`
      INSERT INTO auth_users (id, name, email, email_verified, created_at, updated_at)
      VALUES (${randomUUID()}, ${name}, ${email}, ${true}, ${dateParam(tx, now)}, ${dateParam(tx, now)})
      ON CONFLICT (email) DO NOTHING`);
    const row = await tx.one<{ id: string }>(sql`SELECT id FROM auth_users WHERE email = ${email}`);
    const id = (row as { id: string }).id;
    await tx.batch([ensureUser(id)]);
    return id;
  });
}

/** better-auth's date columns: milliseconds on SQLite, timestamptz on PostgreSQL. */
const dateParam = (tx: Executor, date: Date) => (tx.dialect.name === "sqlite" ? date.getTime() : date.toISOString());

const INVITE_DAYS = 14;

/** RETRACE_SIGNUP=invite: the operator invites an address (again: a fresh 14 days). */
export async function inviteEmail(email: string): Promise<{ email: string; expires_at: string }> {
  const address = email.trim().toLowerCase();
  const now = Date.now();
  const expires = now + INVITE_DAYS * 86_400_000;
  const db = await getDb();
  await db.run(sql`
    INSERT INTO invites (email, created_at, expires_at) VALUES (${address}, ${now}, ${expires})
    ON CONFLICT (email) DO UPDATE SET created_at = excluded.created_at, expires_at = excluded.expires_at, used_at = NULL`);
  return { email: address, expires_at: new Date(expires).toISOString() };
}

/** Whether an unused, unexpired invitation exists for the address. */
export async function hasInvite(email: string): Promise<boolean> {
  const db = await getDb();
  const row = await db.one(sql`
    SELECT email FROM invites WHERE email = ${email.trim().toLowerCase()} AND used_at IS NULL AND expires_at > ${Date.now()}`);
  return row !== undefined;
}

export async function spendInvite(email: string): Promise<void> {
  const db = await getDb();
  await db.run(sql`UPDATE invites SET used_at = ${Date.now()} WHERE email = ${email.trim().toLowerCase()} AND used_at IS NULL`);
}

/** A new account's `users` row, which the store's tables reference. */
export async function ensureAccountUser(userId: string): Promise<void> {
  const db = await getDb();
  await db.write((tx) => tx.batch([ensureUser(userId)]));
}
