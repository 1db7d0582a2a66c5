import "server-only";
import { createHmac, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { jwtVerify, SignJWT } from "jose";
import { databasePath } from "@/lib/config";

export const AUTH_COOKIE = "retrace_token";
/** A guest token lives 30 days; using it in its second half re-issues the cookie (sliding expiry). */
export const TOKEN_LIFETIME_SECONDS = 30 * 24 * 60 * 60;

interface Claims {
  userId: string;
  iat: number;
}

const perProcess = globalThis as typeof globalThis & { __retraceKey?: Promise<CryptoKey>; __retraceVerified?: Map<string, Claims> };

/** AUTH_SECRET, or a random secret kept beside the database so tokens survive restarts. */
function secret(): Uint8Array<ArrayBuffer> {
  let value = process.env.AUTH_SECRET;
  if (!value) {
    const db = databasePath();
    const file = path.join(db === ":memory:" ? "data" : path.dirname(path.resolve(db)), ".auth-secret");
    if (!existsSync(file)) {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" });
    }
    value = readFileSync(file, "utf8").trim();
  }
  return new TextEncoder().encode(value);
}

/** A secret for another purpose (better-auth's cookies), derived from AUTH_SECRET so no key signs two kinds of token. */
export function derivedSecret(purpose: string): string {
  return createHmac("sha256", secret()).update(purpose).digest("base64url");
}

/** The secret as an HMAC key, imported once: importing it on every request cost about 2% of a turn's CPU under load. */
function key(): Promise<CryptoKey> {
  perProcess.__retraceKey ??= crypto.subtle.importKey("raw", secret(), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
  return perProcess.__retraceKey;
}

/**
 * Tokens this process has issued or verified, by their exact text (signature included). A client sends
 * the same token with every request, and WebCrypto's HMAC runs on libuv's thread pool: under the load
 * bench, waiting for it to come back through the busy event loop was most of a send's time before the
 * agent started (155 of 156 ms, median).
 */
const MAX_KNOWN = 10_000;
function known(): Map<string, Claims> {
  perProcess.__retraceVerified ??= new Map();
  return perProcess.__retraceVerified;
}

function remember(token: string, claims: Claims) {
  const tokens = known();
  if (tokens.size >= MAX_KNOWN) tokens.delete(tokens.keys().next().value as string);
  tokens.set(token, claims);
}

export async function issueToken(userId: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(userId)
    .setIssuedAt(now)
    .setExpirationTime(now + TOKEN_LIFETIME_SECONDS)
    .sign(await key());
  remember(token, { userId, iat: now });
  return token;
}

export interface VerifiedToken {
  userId: string;
  /** Past half its life: the caller should re-issue it. */
  stale: boolean;
}

/** The user a token was issued for, or null when it is missing, forged, tampered with or expired. */
export async function verifyToken(token: string | undefined | null): Promise<VerifiedToken | null> {
  if (!token) return null;
  let claims = known().get(token);
  if (!claims) {
    try {
      // maxTokenAge also bounds tokens issued before expiry existed (they carry only `iat`).
      const { payload } = await jwtVerify(token, await key(), { algorithms: ["HS256"], maxTokenAge: TOKEN_LIFETIME_SECONDS });
      if (typeof payload.sub !== "string" || typeof payload.iat !== "number") return null;
      claims = { userId: payload.sub, iat: payload.iat };
      remember(token, claims);
    } catch {
      return null;
    }
  }
  const age = Date.now() / 1000 - claims.iat;
  if (age > TOKEN_LIFETIME_SECONDS) return null;
  return { userId: claims.userId, stale: age > TOKEN_LIFETIME_SECONDS / 2 };
}

function cookieValue(header: string | null, name: string): string | undefined {
  for (const part of header?.split(";") ?? []) {
    const [key, ...rest] = part.trim().split("=");
    if (key !== name) continue;
    try {
      return decodeURIComponent(rest.join("="));
    } catch {
      return undefined; // bad %-encoding: no usable token, so a 401 rather than a crash
    }
  }
  return undefined;
}

/** Where a request's token came from: a Bearer header (API clients) or the cookie (browsers). */
export function tokenFrom(headers: Headers): { token: string; via: "bearer" | "cookie" } | null {
  const bearer = headers.get("authorization")?.match(/^Bearer\s+(.+)$/i)?.[1];
  if (bearer) return { token: bearer, via: "bearer" };
  const cookie = cookieValue(headers.get("cookie"), AUTH_COOKIE);
  return cookie ? { token: cookie, via: "cookie" } : null;
}

/** Whether the client reached us over HTTPS, directly or through a TLS-terminating proxy. */
export function isHttps(url: URL, headers: Headers): boolean {
  return url.protocol === "https:" || headers.get("x-forwarded-proto")?.split(",")[0].trim().toLowerCase() === "https";
}

export function authCookieOptions(secure: boolean) {
  return { httpOnly: true, sameSite: "lax" as const, path: "/", maxAge: TOKEN_LIFETIME_SECONDS, secure };
}

/** A `Set-Cookie` value carrying a token, for responses built without NextResponse. */
export function authCookie(token: string, secure: boolean): string {
  const parts = [`${AUTH_COOKIE}=${token}`, "Path=/", `Max-Age=${TOKEN_LIFETIME_SECONDS}`, "HttpOnly", "SameSite=Lax"];
  return (secure ? [...parts, "Secure"] : parts).join("; ");
}
