import { agentCardResponse } from "@/lib/a2a/card";
import { getAgent } from "@/lib/agent/registry";
import { errorResponse } from "@/lib/api/handler";

/** The agent's public card: discovery needs no credentials, the card says how to get them (docs/api.md, "A2A"). */
export async function GET(request: Request, route: { params: Promise<{ agent: string }> }) {
  try {
    return agentCardResponse(getAgent((await route.params).agent), request);
  } catch (error) {
    return errorResponse(error);
  }
}
