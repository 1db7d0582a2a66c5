import { getAuth } from "@/lib/accounts/auth";
import { errorResponse, ownOrigin, refuseForeignOrigin } from "@/lib/api/handler";
import { MAX_BODY_BYTES } from "@/lib/api/limits";
import { AUTH_COOKIE } from "@/lib/auth";
import { PayloadTooLargeError } from "@/lib/errors";

/**
 * better-auth's routes (sign-up, sign-in, passkeys, OpenID Connect, devices, sign-out) under /api/auth.
 * It sees the request at the origin the client used (a proxy's X-Forwarded-Host/-Proto count, as for every
 * route), so its own Origin check, callback URLs and passkey relying party follow each instance's address.
 */
async function serve(request: Request): Promise<Response> {
  try {
    if (request.method !== "GET" && request.method !== "HEAD") refuseForeignOrigin(request);
    if (Number(request.headers.get("content-length") ?? 0) > MAX_BODY_BYTES) throw new PayloadTooLargeError();
    const url = new URL(request.url);
    const seen = new URL(url.pathname + url.search, ownOrigin(request));
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
    const response = await (await getAuth()).handler(new Request(seen, { method: request.method, headers: request.headers, body }));
    if (!url.pathname.endsWith("/sign-out") || !response.ok) return response;
    // Signing out leaves a fresh guest behind, not the one whose chats moved into the account.
    const signedOut = new Response(response.body, response);
    signedOut.headers.append("set-cookie", `${AUTH_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`);
    return signedOut;
  } catch (error) {
    return errorResponse(error);
  }
}

export { serve as GET, serve as POST };
