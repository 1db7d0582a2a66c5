import { randomUUID } from "node:crypto";
import { type NextRequest, NextResponse } from "next/server";
import { AUTH_COOKIE, AUTH_COOKIE_OPTIONS, issueToken, verifyToken } from "@/lib/auth";

/** Every browser gets a guest user: pages without a valid cookie get a freshly signed one. */
export async function proxy(request: NextRequest) {
  if (await verifyToken(request.cookies.get(AUTH_COOKIE)?.value)) return NextResponse.next();
  const token = await issueToken(randomUUID());
  request.cookies.set(AUTH_COOKIE, token);
  const response = NextResponse.next({ request: { headers: request.headers } });
  response.cookies.set(AUTH_COOKIE, token, AUTH_COOKIE_OPTIONS);
  return response;
}

export const config = {
  matcher: ["/((?!api|_next/static|_next/image|favicon.ico).*)"],
};
