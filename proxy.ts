import { randomBytes, randomUUID } from "node:crypto";
import { type NextRequest, NextResponse } from "next/server";
import { AUTH_COOKIE, authCookieOptions, isHttps, issueToken, verifyToken } from "@/lib/accounts/guest-token";
import { identify, SESSION_COOKIES } from "@/lib/accounts/identity";
import { contentSecurityPolicy } from "@/lib/api/csp";
import { refuseBadPagePost } from "@/lib/api/page-post";

/**
 * Every page request: refuse server-action bodies Next.js would answer with a 500, give the page a
 * nonce-based CSP, and make sure the browser holds a guest token — a fresh one when it has none
 * (or an expired one), a renewed one when its token is past half its life.
 */
export async function proxy(request: NextRequest) {
  const slashed = withoutTrailingSlash(request);
  if (slashed) return slashed;
  const refused = await refuseBadPagePost(request);
  if (refused) return refused;
  const https = isHttps(request.nextUrl, request.headers);
  const sessionCookies = await refreshSession(request);
  const verified = await verifyToken(request.cookies.get(AUTH_COOKIE)?.value);
  const token = verified && !verified.stale ? null : await issueToken(verified?.userId ?? randomUUID());
  if (token) request.cookies.set(AUTH_COOKIE, token); // this very render already sees it

  const nonce = randomBytes(16).toString("base64");
  const policy = contentSecurityPolicy(nonce, { dev: process.env.NODE_ENV === "development", https });
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", policy); // Next.js reads the nonce from here for its scripts
  headers.set("x-nonce", nonce);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  response.headers.set("x-frame-options", "DENY");
  if (token) response.cookies.set(AUTH_COOKIE, token, authCookieOptions(https));
  for (const cookie of sessionCookies) response.headers.append("set-cookie", cookie);
  return response;
}

/**
 * Next.js's own redirect of `/path/` to `/path` (308), which next.config.ts turns off so that kagent's UI's
 * `/api/a2a/{namespace}/{agent}/` is answered where it posts; every other path keeps it.
 */
function withoutTrailingSlash(request: NextRequest): NextResponse | null {
  const { pathname } = request.nextUrl;
  if (pathname === "/" || !pathname.endsWith("/") || pathname.startsWith("/api/a2a/")) return null;
  // A plain URL: a clone of nextUrl would keep its trailing slash.
  return NextResponse.redirect(new URL(`${pathname.replace(/\/+$/, "") || "/"}${request.nextUrl.search}`, request.url), 308);
}

/**
 * A signed-in browser's session cookies as better-auth renews them (its signed cache lasts a minute): the
 * page's own render sees the renewed ones, and the browser gets them with the page.
 */
async function refreshSession(request: NextRequest): Promise<string[]> {
  if (!SESSION_COOKIES.some((name) => request.cookies.has(name))) return [];
  const { cookies } = await identify(request.headers);
  for (const cookie of cookies) {
    const [pair, ...attributes] = cookie.split(";");
    const at = pair.indexOf("=");
    const name = pair.slice(0, at).trim();
    if (attributes.some((a) => /^\s*max-age=0\s*$/i.test(a))) request.cookies.delete(name);
    else request.cookies.set(name, decodeURIComponent(pair.slice(at + 1).trim()));
  }
  return cookies;
}

export const config = {
  // Everything but the API (its routes authenticate themselves), static files, and a share link's files: those
  // keep their route's `Content-Security-Policy: sandbox`, which the pages' policy here would replace — and an
  // HTML file would then run, or redirect its reader, on the app's own origin. And every path with a trailing
  // slash but A2A's (withoutTrailingSlash).
  matcher: ["/((?!api(?:/|$)|_next/static|_next/image|favicon.ico|s/[^/]+/files/).*)", "/((?!api/a2a/).*)/"],
};
