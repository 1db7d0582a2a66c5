import { randomUUID } from "node:crypto";
import { type NextRequest, NextResponse } from "next/server";
import { AUTH_COOKIE, authCookieOptions, isHttps, issueToken, verifyToken } from "@/lib/auth";

/**
 * Every page request makes sure the browser holds a guest token — a fresh one when it has none (or
 * an expired one), a renewed one when its token is past half its life.
 */
export async function proxy(request: NextRequest) {
  const verified = await verifyToken(request.cookies.get(AUTH_COOKIE)?.value);
  if (verified && !verified.stale) return NextResponse.next();
  const token = await issueToken(verified?.userId ?? randomUUID());
  request.cookies.set(AUTH_COOKIE, token); // this very render already sees it
  const response = NextResponse.next({ request: { headers: request.headers } });
  response.cookies.set(AUTH_COOKIE, token, authCookieOptions(isHttps(request.nextUrl, request.headers)));
  return response;
}

export const config = {
  matcher: ["/((?!api|_next/static|_next/image|favicon.ico).*)"],
};
