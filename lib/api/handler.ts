import { z } from "zod";
import { getUserId } from "@/lib/auth";
import { AppError, PayloadTooLargeError, ValidationError } from "@/lib/errors";

const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** A page's cursor travels beside `data` (docs/api.md, "Paging"). */
type Result = Response | { data: unknown; status?: number; message?: string; next_before?: string | null };
interface Context<P> {
  request: Request;
  userId: string;
  params: P;
}

export function json(body: unknown, status = 200, headers?: HeadersInit): Response {
  return Response.json(body, { status, headers });
}

export function errorResponse(error: unknown): Response {
  if (error instanceof AppError) return json({ error: error.message, code: error.code }, error.status);
  console.error(error);
  return json({ error: "Internal server error", code: "internal" }, 500);
}

/**
 * Every authenticated route handler reads the same way: authenticate, run, wrap the result in
 * `{data}` or map the error to `{error, code}`.
 */
export function handler<P = Record<string, never>>(fn: (ctx: Context<P>) => Promise<Result> | Result) {
  return async (request: Request, route: { params: Promise<P> }) => {
    try {
      const userId = await getUserId(request);
      const result = await fn({ request, userId, params: await route.params });
      if (result instanceof Response) return result;
      const { status = 200, ...body } = result;
      return json(body, status);
    } catch (error) {
      return errorResponse(error);
    }
  };
}

/** Reads the body as text, refusing more than 10 MiB even when Content-Length is absent or lies. */
export async function readBody(request: Request): Promise<string> {
  if (Number(request.headers.get("content-length") ?? 0) > MAX_BODY_BYTES) throw new PayloadTooLargeError();
  if (!request.body) return "";
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
  return Buffer.concat(chunks).toString("utf8");
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
  if (!result.success) throw new ValidationError(z.prettifyError(result.error));
  return result.data;
}

/** The URL's query parameters, validated like a body. */
export function readQuery<S extends z.ZodType>(request: Request, schema: S): z.infer<S> {
  return parse(schema, Object.fromEntries(new URL(request.url).searchParams));
}

/** Everything, or one page with its cursor: what a listing route answers. */
export function listing<T>(page: { items: T[]; nextBefore: string | null }, paged: boolean) {
  return paged ? { data: page.items, next_before: page.nextBefore } : { data: page.items };
}

export async function readInput<S extends z.ZodType>(request: Request, schema: S): Promise<z.infer<S>> {
  return parse(schema, await readJson(request));
}
