import { agentCard } from "@/lib/a2a/request-handler";
import { getAgent } from "@/lib/agent/registry";
import { handler } from "@/lib/api/handler";

export const GET = handler<{ agent: string }>(async ({ request, params }) => {
  const url = new URL(request.url);
  return Response.json(agentCard(getAgent(params.agent), `${url.origin}/api/a2a/${params.agent}`));
});
