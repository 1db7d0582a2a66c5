import { handler, readInput } from "@/lib/api/handler";
import { renameSessionInput } from "@/lib/api/schemas";
import { deleteSession, getSession, listEvents, renameSession } from "@/lib/db/queries";

type Params = { id: string };

export const GET = handler<Params>(({ userId, params }) => ({
  data: { session: getSession(userId, params.id), events: listEvents(userId, params.id) },
}));

export const PATCH = handler<Params>(async ({ request, userId, params }) => {
  const { name } = await readInput(request, renameSessionInput);
  return { data: renameSession(userId, params.id, name) };
});

export const DELETE = handler<Params>(({ userId, params }) => {
  deleteSession(userId, params.id);
  return { data: { id: params.id }, message: "Session deleted" };
});
