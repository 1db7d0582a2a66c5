import { getAuth } from "@/lib/accounts/better-auth";
import { CLIENT_ADDRESS_HEADER, clientAddress } from "@/lib/accounts/client-address";
import { AUTH_COOKIE, isHttps } from "@/lib/accounts/guest-token";
import { ACCOUNT_COOKIES } from "@/lib/accounts/identity";
import { errorResponse, ownOrigin, readBytes, refuseForeignOrigin, requireJsonType } from "@/lib/api/handler";
import { assertCleanText, assertJsonText } from "@/lib/api/json-text";

/**
 * A refusal signs nobody in: a sign-in refused after its session was made (its guest's move, lib/accounts/hooks.ts)
 * comes back from better-auth with the session's cookies; only their removals are passed on.
 */
function withoutSignIn(response: Response): Response {
  const cookies = response.headers.getSetCookie();
  const kept = cookies.filter((cookie) => !ACCOUNT_COOKIES.includes(cookie.split("=")[0].trim()) || /;\s*max-age=0/i.test(cookie));
  if (kept.length === cookies.length) return response;
  const answer = new Response(response.body, response);
  answer.headers.delete("set-cookie");
  for (const cookie of kept) answer.headers.append("set-cookie", cookie);
  return answer;
}

/** An error, or single sign-on's redirect back with one (`?error=…`). */
const isRefusal = (response: Response) =>
  response.status >= 400 || (response.status >= 300 && /[?&]error=/.test(response.headers.get("location") ?? ""));

/**
 * better-auth's routes (sign-up, sign-in, passkeys, OpenID Connect, devices, sign-out) under /api/auth, held to
 * the API's request rules first: a body of at most 10 MiB, counted as it streams in (413), JSON only (415), and
 * the text rule on the body and the query (400 `invalid_text`). better-auth sees the request at the origin the
 * client used (a proxy's X-Forwarded-Host/-Proto count, as for every route), so its Origin check, callback URLs
 * and passkey relying party follow each instance's address; its cookies are Secure exactly when the request came
 * over HTTPS; and its rate limits count the client address lib/accounts/client-address.ts trusts.
 */
async function serve(request: Request): Promise<Response> {
  try {
    const url = new URL(request.url);
    const reads = request.method !== "GET" && request.method !== "HEAD";
    if (reads) refuseForeignOrigin(request);
    for (const [name, value] of url.searchParams) assertCleanText(value, `The query's ${name}`);
    // A passkey sign-up names the person in JSON (`context`): its escapes obey the rule too.
    const context = url.searchParams.get("context");
    if (context !== null) assertJsonText(context, "The query's context");
    const body = reads ? await readBytes(request) : undefined;
    if (body?.length) {
      requireJsonType(request);
      assertJsonText(body.toString("utf8"));
    }
    const headers = new Headers(request.headers);
    headers.delete(CLIENT_ADDRESS_HEADER);
    const address = clientAddress(request.headers);
    if (address) headers.set(CLIENT_ADDRESS_HEADER, address);
    const seen = new URL(url.pathname + url.search, ownOrigin(request));
    const auth = await getAuth(isHttps(url, request.headers));
    const response = await auth.handler(new Request(seen, { method: request.method, headers, body: body && new Uint8Array(body) }));
    if (isRefusal(response)) return withoutSignIn(response);
    if (!url.pathname.endsWith("/sign-out")) return response;
    // Signing out leaves a fresh guest behind, not the one whose chats moved into the account.
    const signedOut = new Response(response.body, response);
    signedOut.headers.append("set-cookie", `${AUTH_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`);
    return signedOut;
  } catch (error) {
    return errorResponse(error);
  }
}

export { serve as GET, serve as POST };
