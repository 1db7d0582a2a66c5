import { handler, listing, readQuery } from "@/lib/api/handler";
import { namespacedAgent } from "@/lib/api/kagent";
import { pageRequestOf, sessionsQuery } from "@/lib/api/schemas";
import { listSessions } from "@/lib/db/queries";

type Params = { namespace: string; agent: string };

/** kagent's sidebar: the caller's chats of one agent, named as kagent names it (docs/api.md, "kagent's UI"). */
export const GET = handler<Params>(async ({ request, userId, params }) => {
  const agent = namespacedAgent(params.namespace, params.agent);
  const page = pageRequestOf(readQuery(request, sessionsQuery));
  return listing(await listSessions(userId, page, agent.name), page !== undefined);
});
