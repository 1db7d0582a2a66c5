/**
 * Personal API tokens: an account's Bearer credentials for REST and A2A clients. Only a SHA-256 hash is
 * stored; the token is shown once, when created. A token stops working when revoked, expired, or its
 * account is deleted (docs/api.md, "Personal API tokens").
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { NotFoundError } from "@/lib/errors";
import { getDb } from "./connection";
import type { ApiToken } from "./types";

/** Tells a personal token from a guest JWT at a glance (and to secret scanners). */
export const TOKEN_PREFIX = "rtk_";
/** Recording every use would be a write per request: once an hour is enough to show "last used". */
const TOUCH_EVERY_MS = 60 * 60 * 1000;

interface TokenRow {
  id: string;
  name: string;
  prefix: string;
  created_at: number;
  last_used_at: number | null;
  expires_at: number | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());
const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");

function shape(row: TokenRow): ApiToken {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    created_at: iso(row.created_at) as string,
    last_used_at: iso(row.last_used_at),
    expires_at: iso(row.expires_at),
  };
}

export async function createApiToken(userId: string, input: { name: string; expiresInDays?: number }) {
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const now = Date.now();
  const row: TokenRow = {
    id: randomUUID(),
    name: input.name.trim(),
    prefix: token.slice(0, TOKEN_PREFIX.length + 6),
    created_at: now,
    last_used_at: null,
    expires_at: input.expiresInDays ? now + input.expiresInDays * 86_400_000 : null,
  };
  const db = await getDb();
  await db.write(async (tx) => {
    await tx.run(sql`INSERT INTO users (id, created_at) VALUES (${userId}, ${now}) ON CONFLICT (id) DO NOTHING`);
    await tx.run(sql`
      INSERT INTO api_tokens (id, user_id, name, hash, prefix, created_at, expires_at)
      VALUES (${row.id}, ${userId}, ${row.name}, ${hashOf(token)}, ${row.prefix}, ${now}, ${row.expires_at})`);
  });
  return { ...shape(row), token };
}

export async function listApiTokens(userId: string): Promise<ApiToken[]> {
  const db = await getDb();
  const rows = await db.all<TokenRow>(sql`
    SELECT id, name, prefix, created_at, last_used_at, expires_at FROM api_tokens WHERE user_id = ${userId} ORDER BY created_at DESC, id`);
  return rows.map(shape);
}

/** Another user's token is a 404, like their chats. */
export async function revokeApiToken(userId: string, id: string): Promise<void> {
  const db = await getDb();
  const deleted = await db.run(sql`DELETE FROM api_tokens WHERE id = ${id} AND user_id = ${userId}`);
  if (deleted === 0) throw new NotFoundError("Token not found");
}

/** The account a token belongs to, or null when it is unknown, revoked or expired: one indexed read. */
export async function userOfApiToken(token: string): Promise<string | null> {
  const db = await getDb();
  const row = await db.one<{ id: string; user_id: string; last_used_at: number | null; expires_at: number | null }>(sql`
    SELECT id, user_id, last_used_at, expires_at FROM api_tokens WHERE hash = ${hashOf(token)}`);
  const now = Date.now();
  if (!row || (row.expires_at !== null && Number(row.expires_at) <= now)) return null;
  if (row.last_used_at === null || Number(row.last_used_at) < now - TOUCH_EVERY_MS) {
    await db.run(sql`UPDATE api_tokens SET last_used_at = ${now} WHERE id = ${row.id}`);
  }
  return row.user_id;
}
