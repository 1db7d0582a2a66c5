import { handler, readInput } from "@/lib/api/handler";
import { renameSessionInput } from "@/lib/api/schemas";
import { deleteSession, getSession, listEvents, renameSession } from "@/lib/db/queries";

type Params = { id: string };

/** `?include_events=false` skips the raw log, for clients that only need the session and its state. */
export const GET = handler<Params>(async ({ request, userId, params }) => {
  const session = await getSession(userId, params.id);
  if (new URL(request.url).searchParams.get("include_events") === "false") return { data: { session } };
  return { data: { session, events: (await listEvents(userId, params.id)).items } };
});

export const PATCH = handler<Params>(async ({ request, userId, params }) => {
  const { name } = await readInput(request, renameSessionInput);
  return { data: await renameSession(userId, params.id, name) };
});

export const DELETE = handler<Params>(async ({ userId, params }) => {
  await deleteSession(userId, params.id);
  return { data: { id: params.id }, message: "Session deleted" };
});
