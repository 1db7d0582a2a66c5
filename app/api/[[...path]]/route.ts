import { json } from "@/lib/api/handler";

/** Any `/api` path no route serves: a JSON 404 for every method, never the HTML not-found page. */
function notFound(request: Request): Response {
  return json({ error: `No API route at ${new URL(request.url).pathname}`, code: "not_found" }, 404);
}

export { notFound as DELETE, notFound as GET, notFound as HEAD, notFound as OPTIONS, notFound as PATCH, notFound as POST, notFound as PUT };
