import "server-only";
import type { z } from "zod";
import { authCookie, isHttps, issueToken } from "@/lib/accounts/guest-token";
import { type IdentityKind, identify } from "@/lib/accounts/identity";
import {
  AppError,
  AuthError,
  isStoreUnavailable,
  issuesText,
  PayloadTooLargeError,
  STORE_UNAVAILABLE,
  ValidationError,
} from "@/lib/errors";
import { assertCleanText, assertJsonText } from "./json-text";
import { MAX_BODY_BYTES } from "./limits";

/** A page's cursor travels beside `data` (docs/api.md, "Paging"). */
type Result = Response | { data: unknown; status?: number; message?: string; next_before?: string | null };
interface Context<P> {
  request: Request;
  userId: string;
  /** Guest, signed-in account, personal API token or trusted proxy (lib/accounts/identity.ts). */
  kind: IdentityKind;
  params: P;
}

export function json(body: unknown, status = 200, headers?: HeadersInit): Response {
  return Response.json(body, { status, headers });
}

export function errorResponse(error: unknown): Response {
  if (error instanceof AppError) return json({ error: error.message, code: error.code }, error.status);
  console.error(error);
  if (isStoreUnavailable(error)) return json({ error: STORE_UNAVAILABLE.message, code: STORE_UNAVAILABLE.code }, 503);
  return json({ error: "Internal server error", code: "internal" }, 500);
}

/** The origin the client sees us at: a reverse proxy's X-Forwarded-Host/-Proto win over our own. */
export function ownOrigin(request: Request): string {
  const url = new URL(request.url);
  const host = request.headers.get("x-forwarded-host")?.split(",")[0].trim() || request.headers.get("host") || url.host;
  return new URL(`${isHttps(url, request.headers) ? "https" : "http"}://${host}`).origin;
}

/**
 * Refuses a request a browser sent from a page of another origin (another site, or another port
 * of this host): with the cookie it would act as the victim (CSRF, docs/api.md, "Requests"). Browsers always send
 * `Origin` on POST, PUT, PATCH and DELETE; a request without one did not come from a foreign page.
 */
export function refuseForeignOrigin(request: Request): void {
  const origin = request.headers.get("origin");
  if (origin === null) return;
  let normalized: string | null = null;
  try {
    normalized = new URL(origin).origin;
  } catch {
    // "null" (sandboxed frames, privacy-sensitive redirects) or garbage: not our origin
  }
  if (normalized !== ownOrigin(request)) {
    throw new AppError(
      403,
      "cross_origin",
      "Requests from another origin may not use the session cookie; send Authorization: Bearer <token>",
    );
  }
}

interface Caller {
  userId: string;
  kind: IdentityKind;
  /** Headers to hand back: a renewed guest token when the caller's is past half its life, refreshed session cookies. */
  headers: [name: string, value: string][];
}

/**
 * The caller (lib/accounts/identity.ts); a cookie-borne identity only from our own origin. A guest token used
 * in the second half of its life is renewed: a new cookie, or for Bearer clients `X-Retrace-Token`.
 */
async function authenticate(request: Request): Promise<Caller> {
  const { identity, cookies } = await identify(request.headers);
  if (!identity) throw new AuthError();
  if (identity.via === "cookie") refuseForeignOrigin(request);
  const headers = cookies.map((cookie): [string, string] => ["set-cookie", cookie]);
  if (identity.kind === "guest" && identity.stale) {
    const token = await issueToken(identity.userId);
    headers.push(
      identity.via === "bearer"
        ? ["x-retrace-token", token]
        : ["set-cookie", authCookie(token, isHttps(new URL(request.url), request.headers))],
    );
  }
  return { userId: identity.userId, kind: identity.kind, headers };
}

/**
 * For a route that builds its own response (the A2A endpoint): the caller, and the function that hands
 * a renewed token back on that response.
 */
export async function authenticateRequest(request: Request) {
  const caller = await authenticate(request);
  return {
    userId: caller.userId,
    renew(response: Response): Response {
      for (const header of caller.headers) response.headers.append(...header);
      return response;
    },
  };
}

/**
 * Every authenticated route handler reads the same way: authenticate, run, wrap the result in
 * `{data}` or map the error to `{error, code}`.
 */
export function handler<P = Record<string, never>>(fn: (ctx: Context<P>) => Promise<Result> | Result) {
  return async (request: Request, route: { params: Promise<P> }) => {
    try {
      const caller = await authenticate(request);
      const params = await route.params;
      for (const [name, value] of Object.entries(params ?? {})) {
        for (const text of [value].flat()) if (typeof text === "string") assertCleanText(text, `The path's ${name}`);
      }
      const result = await fn({ request, userId: caller.userId, kind: caller.kind, params });
      let response: Response;
      if (result instanceof Response) response = result;
      else {
        const { status = 200, ...body } = result;
        response = json(body, status);
      }
      for (const header of caller.headers) response.headers.append(...header);
      return response;
    } catch (error) {
      return errorResponse(error);
    }
  };
}

/** Only JSON bodies (415 otherwise): a cross-site form or a `no-cors` fetch cannot send one. */
export function requireJsonType(request: Request): void {
  const type = request.headers.get("content-type")?.split(";")[0].trim().toLowerCase();
  if (type !== "application/json")
    throw new AppError(415, "unsupported_media_type", "Send the body as JSON with Content-Type: application/json");
}

/**
 * A request body's bytes, at most 10 MiB (413), counted as they stream in — also when Content-Length is
 * absent (chunked) or lies — so an oversized body is refused after 10 MiB, never held whole.
 */
export async function readBytes(request: Request): Promise<Buffer> {
  if (Number(request.headers.get("content-length") ?? 0) > MAX_BODY_BYTES) throw new PayloadTooLargeError();
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw new PayloadTooLargeError();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** Reads a JSON request body as text: JSON only (415), at most 10 MiB (413), nested at most 64 levels and clean text (400). */
export async function readBody(request: Request): Promise<string> {
  requireJsonType(request);
  const text = (await readBytes(request)).toString("utf8");
  assertJsonText(text);
  return text;
}

export async function readJson(request: Request): Promise<unknown> {
  const text = await readBody(request);
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError(400, "invalid_json", "Request body is not valid JSON");
  }
}

export function parse<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(issuesText(result.error));
  return result.data;
}

/** The URL's query parameters, validated like a body. */
export function readQuery<S extends z.ZodType>(request: Request, schema: S): z.infer<S> {
  const query = new URL(request.url).searchParams;
  for (const [name, value] of query) assertCleanText(value, `The query's ${name}`);
  return parse(schema, Object.fromEntries(query));
}

/** Everything, or one page with its cursor: what a listing route answers. */
export function listing<T>(page: { items: T[]; nextBefore: string | null }, paged: boolean) {
  return paged ? { data: page.items, next_before: page.nextBefore } : { data: page.items };
}

export async function readInput<S extends z.ZodType>(request: Request, schema: S): Promise<z.infer<S>> {
  return parse(schema, await readJson(request));
}
