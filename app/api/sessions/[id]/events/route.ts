import { handler, listing, readJson, readQuery } from "@/lib/api/handler";
import { assertJsonText } from "@/lib/api/json-text";
import { eventsQuery, pageRequestOf } from "@/lib/api/schemas";
import { appendEvents, listEvents, MAX_EVENTS_PER_APPEND } from "@/lib/db/queries";
import { AppError, ValidationError } from "@/lib/errors";
import { normalizeEvent } from "@/lib/session/normalize";

type Params = { id: string };

export const GET = handler<Params>(async ({ request, userId, params }) => {
  const query = readQuery(request, eventsQuery);
  const page = pageRequestOf(query);
  return listing(await listEvents(userId, params.id, query.view, page), page !== undefined);
});

/** One ADK event, an array of them, or kagent's `{id, data}`; snake_case or camelCase. */
export const POST = handler<Params>(async ({ request, userId, params }) => {
  const body = await readJson(request);
  const items = Array.isArray(body) ? body : [body];
  if (items.length === 0) throw new ValidationError("No events given");
  if (items.length > MAX_EVENTS_PER_APPEND) {
    throw new AppError(
      400,
      "too_many_events",
      `At most ${MAX_EVENTS_PER_APPEND} events per request (got ${items.length}); send them in batches`,
    );
  }
  const events = items.map((item, i) => {
    // kagent's envelope carries the event as JSON text, which the request's depth check never saw.
    const envelope = item as { data?: unknown } | null;
    if (typeof envelope?.data === "string") assertJsonText(envelope.data, `Event ${i}`);
    try {
      return normalizeEvent(item);
    } catch (error) {
      throw new ValidationError(`Event ${i}: ${(error as Error).message}`);
    }
  });
  return { data: await appendEvents(userId, params.id, events), status: 201 };
});
