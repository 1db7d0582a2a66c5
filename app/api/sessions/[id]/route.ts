import { handler, readInput } from "@/lib/api/handler";
import { renameSessionInput } from "@/lib/api/schemas";
import { deleteSession, getSession, listEvents, renameSession } from "@/lib/db/queries";

type Params = { id: string };

/** `?include_events=false` skips the raw log, for clients that only need the session and its state. */
export const GET = handler<Params>(({ request, userId, params }) => {
  const session = getSession(userId, params.id);
  if (new URL(request.url).searchParams.get("include_events") === "false") return { data: { session } };
  return { data: { session, events: listEvents(userId, params.id) } };
});

export const PATCH = handler<Params>(async ({ request, userId, params }) => {
  const { name } = await readInput(request, renameSessionInput);
  return { data: renameSession(userId, params.id, name) };
});

export const DELETE = handler<Params>(({ userId, params }) => {
  deleteSession(userId, params.id);
  return { data: { id: params.id }, message: "Session deleted" };
});
