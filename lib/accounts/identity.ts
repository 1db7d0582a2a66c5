import "server-only";
/**
 * Who a request is, in one place for route handlers, the A2A endpoint, pages and server actions:
 * a Bearer credential (a personal API token, or a guest token), else the user a trusted proxy names
 * (only when RETRACE_TRUSTED_USER_HEADER is set), else the account of the better-auth session cookie,
 * else the guest cookie. Whatever the kind, the answer is a `users` id.
 */
import { headers } from "next/headers";
import { config } from "@/lib/config";
import { proxyEmail, TOKEN_PREFIX, trustedAccount, userOfApiToken } from "@/lib/db/queries";
import { getAuth } from "./better-auth";
import { tokenFrom, verifyToken } from "./guest-token";

export type IdentityKind = "guest" | "account" | "token" | "proxy";

interface Identity {
  userId: string;
  kind: IdentityKind;
  /** A cookie-borne identity must come from our own origin (CSRF); a Bearer one need not. */
  via: "bearer" | "cookie";
  /** A guest token past half its life: the caller re-issues it. */
  stale: boolean;
  /** The signed-in person, from the session's signed cache (or the proxy's header): no database read. */
  profile?: { name: string; email: string };
}

export interface Identified {
  identity: Identity | null;
  /** Set-Cookie values to hand back: a refreshed session cache, or the removal of a dead session's cookies. */
  cookies: string[];
}

/** A session's cookies as better-auth names them over HTTPS (`__Secure-`) and over plain HTTP (lib/accounts/better-auth.ts). */
const SECURE_PREFIX = "__Secure-";
export const SESSION_COOKIES = ["retrace.session_token", `${SECURE_PREFIX}retrace.session_token`];
const DATA_COOKIES = ["retrace.session_data", `${SECURE_PREFIX}retrace.session_data`];
/** Every cookie that signs a browser in to an account. */
export const ACCOUNT_COOKIES = [...SESSION_COOKIES, ...DATA_COOKIES];

function cookieOf(headers: Headers, names: string[]): { name: string; value: string } | undefined {
  for (const part of headers.get("cookie")?.split(";") ?? []) {
    const at = part.indexOf("=");
    const name = part.slice(0, at).trim();
    if (at > 0 && names.includes(name)) return { name, value: part.slice(at + 1).trim() };
  }
  return undefined;
}

interface Known {
  userId: string;
  until: number;
  profile?: { name: string; email: string };
}

const perProcess = globalThis as typeof globalThis & { __retraceSessions?: Map<string, Known>; __retraceProxyUsers?: Map<string, Known> };
const MAX_KNOWN = 10_000;

function remember(map: Map<string, Known>, key: string, known: Known) {
  if (map.size >= MAX_KNOWN) map.delete(map.keys().next().value as string);
  map.set(key, known);
}

/** The compact cookie cache's own expiry (its signature was checked by better-auth before we read it). */
function cacheExpiry(data: string): number {
  try {
    const parsed = JSON.parse(Buffer.from(decodeURIComponent(data), "base64url").toString("utf8")) as { expiresAt?: unknown };
    return typeof parsed.expiresAt === "number" ? parsed.expiresAt : 0;
  } catch {
    return 0;
  }
}

/**
 * The account of a better-auth session cookie. better-auth checks the signed cookie cache (no database
 * read while it is fresh) and otherwise the session row; what it confirmed is then known in-process by the
 * cookies' exact text until the cache expires, so a signed-in request costs a map lookup, like a guest's.
 */
async function sessionAccount(headers: Headers): Promise<{ known: Known | null; cookies: string[] }> {
  const session = cookieOf(headers, SESSION_COOKIES);
  if (!session) return { known: null, cookies: [] };
  const token = session.value;
  const data = cookieOf(headers, DATA_COOKIES)?.value;
  perProcess.__retraceSessions ??= new Map();
  const key = `${token}|${data ?? ""}`;
  const known = perProcess.__retraceSessions.get(key);
  if (known && known.until > Date.now()) return { known, cookies: [] };
  // The better-auth that set the cookie reads it: HTTPS cookies carry the prefix.
  const auth = await getAuth(session.name.startsWith(SECURE_PREFIX));
  const { headers: answer, response } = await auth.api.getSession({ headers, returnHeaders: true });
  const cookies = answer.getSetCookie();
  if (!response) return { known: null, cookies };
  const until = Math.min(data ? cacheExpiry(data) : 0, new Date(response.session.expiresAt).getTime());
  const confirmed: Known = { userId: response.user.id, until, profile: { name: response.user.name, email: response.user.email } };
  // Only a cache better-auth accepted as it stands (it sets a new one when it read the database instead).
  if (data && !cookies.some((c) => DATA_COOKIES.some((name) => c.startsWith(`${name}=`))))
    remember(perProcess.__retraceSessions, key, confirmed);
  return { known: confirmed, cookies };
}

/** The account a trusted proxy names, known in-process for a minute after it was looked up. */
async function proxyAccount(name: string): Promise<string | null> {
  const value = name.trim();
  if (!value || value.length > 254 || /\p{Cc}/u.test(value)) return null;
  perProcess.__retraceProxyUsers ??= new Map();
  const known = perProcess.__retraceProxyUsers.get(value);
  if (known && known.until > Date.now()) return known.userId;
  const userId = await trustedAccount(value);
  remember(perProcess.__retraceProxyUsers, value, { userId, until: Date.now() + 60_000 });
  return userId;
}

/** Forgets what this process knew about an account (deleted, or signed out everywhere). */
export function forgetAccount(userId: string) {
  for (const map of [perProcess.__retraceSessions, perProcess.__retraceProxyUsers]) {
    for (const [key, known] of map ?? []) if (known.userId === userId) map?.delete(key);
  }
}

/** The user a Bearer credential is: a personal API token's, or a guest token's; null when it is neither. */
async function bearerIdentity(token: string): Promise<Identity | null> {
  if (token.startsWith(TOKEN_PREFIX)) {
    const userId = await userOfApiToken(token);
    return userId ? { userId, kind: "token", via: "bearer", stale: false } : null;
  }
  const verified = await verifyToken(token);
  return verified ? { userId: verified.userId, kind: "guest", via: "bearer", stale: verified.stale } : null;
}

export async function identify(headers: Headers): Promise<Identified> {
  const found = tokenFrom(headers);
  const trusted = config().accounts.trustedUserHeader;
  const named = trusted ? headers.get(trusted) : null;
  if (found?.via === "bearer") {
    const identity = await bearerIdentity(found.token);
    // Behind the trusted proxy, a Bearer that is not Retrace's is the proxy's own (oauth2-proxy's ID token, which
    // kagent's UI passes on with the header): the header names the user.
    if (identity || named === null) return { identity, cookies: [] };
  }
  if (named !== null) {
    const userId = await proxyAccount(named);
    const profile = { name: named.trim(), email: proxyEmail(named.trim()) };
    return { identity: userId ? { userId, kind: "proxy", via: "cookie", stale: false, profile } : null, cookies: [] };
  }
  const session = await sessionAccount(headers);
  if (session.known) {
    const { userId, profile } = session.known;
    return { identity: { userId, kind: "account", via: "cookie", stale: false, profile }, cookies: session.cookies };
  }
  // No session (or a dead one, whose cookies `session.cookies` removes): the browser is its guest again.
  const verified = found ? await verifyToken(found.token) : null;
  const identity: Identity | null = verified ? { userId: verified.userId, kind: "guest", via: "cookie", stale: verified.stale } : null;
  return { identity, cookies: session.cookies };
}

/** For server components and server actions: the caller, whichever way it signed in. */
export async function currentUserId(): Promise<string | null> {
  return (await identify(await headers())).identity?.userId ?? null;
}
