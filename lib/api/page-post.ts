import "server-only";
import { AppError } from "@/lib/errors";
import { refuseForeignOrigin } from "./handler";
import { assertJsonText } from "./json-text";
import { MAX_BODY_BYTES } from "./limits";

function refuse(status: number, code: string, error: string): Response {
  return Response.json({ error, code }, { status });
}

/** React sends a server action's arguments as a JSON array. */
function isArguments(text: string): boolean {
  try {
    assertJsonText(text);
    return Array.isArray(JSON.parse(text));
  } catch {
    return false;
  }
}

function isJson(text: string): boolean {
  try {
    assertJsonText(text);
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Next.js 16 decodes a server action's body before our code runs and answers 500 when it cannot
 * (bad JSON, arguments that are not an array, a broken multipart body, nesting that overflows its
 * decoder, more than its size limit — its own 413 becomes a 500 too), and when the action comes from a
 * page of another origin. The proxy sees the request first, so it refuses those with a 4xx here: 403
 * for another origin (the rule the API keeps), 400 or 413 for the body. React sends an action's arguments
 * as a JSON array, or as multipart rows whose numbered fields are JSON (field 0 the array); a page POST
 * without `Next-Action` is a decoded form only if multipart.
 */
export async function refuseBadPagePost(request: Request): Promise<Response | null> {
  if (request.method !== "POST") return null;
  const type = request.headers.get("content-type")?.split(";")[0].trim().toLowerCase();
  const multipart = type === "multipart/form-data";
  const action = request.headers.has("next-action");
  if (!multipart && !action) return null;
  if (action) {
    try {
      refuseForeignOrigin(request);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return refuse(error.status, error.code, "Server actions run only for this site's own pages");
    }
  }
  const tooLarge = () => refuse(413, "payload_too_large", "Request body is larger than 10 MiB");
  if (Number(request.headers.get("content-length") ?? 0) > MAX_BODY_BYTES) return tooLarge();
  // Next.js hands the proxy at most proxyClientMaxBodySize (1 MiB over the limit) of the body.
  const body = await request.arrayBuffer();
  if (body.byteLength > MAX_BODY_BYTES) return tooLarge();
  const malformed = () => refuse(400, "invalid_request", "Malformed server action request body");
  if (!multipart) return (action ? isArguments : isJson)(new TextDecoder().decode(body)) ? null : malformed();
  let form: FormData;
  try {
    form = await new Response(body, { headers: { "content-type": request.headers.get("content-type") ?? "" } }).formData();
  } catch {
    return malformed();
  }
  for (const [key, value] of form) {
    if (/^\d+$/.test(key) && typeof value === "string" && !(key === "0" && action ? isArguments : isJson)(value)) return malformed();
  }
  return null;
}
