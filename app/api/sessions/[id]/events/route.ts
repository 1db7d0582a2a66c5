import { handler, parse, readJson } from "@/lib/api/handler";
import { eventsView } from "@/lib/api/schemas";
import { appendEvents, listEvents } from "@/lib/db/queries";
import { ValidationError } from "@/lib/errors";
import { normalizeEvent } from "@/lib/session/normalize";

type Params = { id: string };

export const GET = handler<Params>(({ request, userId, params }) => {
  const view = parse(eventsView, new URL(request.url).searchParams.get("view") ?? undefined);
  return { data: listEvents(userId, params.id, view) };
});

/** One ADK event, an array of them, or kagent's `{id, data}`; snake_case or camelCase. */
export const POST = handler<Params>(async ({ request, userId, params }) => {
  const body = await readJson(request);
  const items = Array.isArray(body) ? body : [body];
  if (items.length === 0) throw new ValidationError("No events given");
  const events = items.map((item, i) => {
    try {
      return normalizeEvent(item);
    } catch (error) {
      throw new ValidationError(`Event ${i}: ${(error as Error).message}`);
    }
  });
  return { data: appendEvents(userId, params.id, events), status: 201 };
});
