import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { jwtVerify, SignJWT } from "jose";
import { databasePath } from "@/lib/config";
import { AuthError } from "@/lib/errors";

export const AUTH_COOKIE = "retrace_token";
export const AUTH_COOKIE_OPTIONS = {
  httpOnly: true,
  sameSite: "lax" as const,
  path: "/",
  maxAge: 60 * 60 * 24 * 365,
};

const holder = globalThis as typeof globalThis & { __retraceSecret?: Uint8Array };

/** AUTH_SECRET, or a random secret kept beside the database so tokens survive restarts. */
function secret(): Uint8Array {
  if (holder.__retraceSecret) return holder.__retraceSecret;
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
  holder.__retraceSecret = new TextEncoder().encode(value);
  return holder.__retraceSecret;
}

export function issueToken(userId: string): Promise<string> {
  return new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject(userId).setIssuedAt().sign(secret());
}

/** The user id a token was issued for, or null when it is missing, forged or tampered with. */
export async function verifyToken(token: string | undefined | null): Promise<string | null> {
  if (!token) return null;
  try {
    const { payload } = await jwtVerify(token, secret(), { algorithms: ["HS256"] });
    return typeof payload.sub === "string" ? payload.sub : null;
  } catch {
    return null;
  }
}

function cookieValue(header: string | null, name: string): string | undefined {
  for (const part of header?.split(";") ?? []) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return undefined;
}

/** Bearer token first, then the cookie: API clients and browsers authenticate the same way. */
function tokenFrom(headers: Headers): string | undefined {
  const bearer = headers.get("authorization")?.match(/^Bearer\s+(.+)$/i)?.[1];
  return bearer ?? cookieValue(headers.get("cookie"), AUTH_COOKIE);
}

export async function getUserId(request: Request): Promise<string> {
  const userId = await verifyToken(tokenFrom(request.headers));
  if (!userId) throw new AuthError();
  return userId;
}

/** For server components and server actions. */
export async function currentUserId(): Promise<string | null> {
  const { headers } = await import("next/headers");
  return verifyToken(tokenFrom(await headers()));
}
