import { agentCardResponse } from "@/lib/a2a/card";
import { errorResponse } from "@/lib/api/handler";
import { namespacedAgent } from "@/lib/api/kagent";

/** The agent's public card at its namespaced URL too (`{agent}` is the namespace here: see the route beside it). */
export async function GET(request: Request, route: { params: Promise<{ agent: string; name: string }> }) {
  try {
    const { agent: namespace, name } = await route.params;
    return agentCardResponse(namespacedAgent(namespace, name), request);
  } catch (error) {
    return errorResponse(error);
  }
}
