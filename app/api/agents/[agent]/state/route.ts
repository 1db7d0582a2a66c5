import { getAgent } from "@/lib/agent/registry";
import { errorResponse, json, readInput } from "@/lib/api/handler";
import { requireOperator } from "@/lib/api/operator";
import { appStateInput } from "@/lib/api/schemas";
import { setAppState } from "@/lib/db/queries";

/** The operator sets (null: deletes) an agent's app-wide `app:` state; answers the agent's whole app state. */
export async function PUT(request: Request, route: { params: Promise<{ agent: string }> }) {
  try {
    requireOperator(request);
    const agent = getAgent((await route.params).agent);
    const delta = await readInput(request, appStateInput);
    return json({ data: await setAppState(agent.name, delta) });
  } catch (error) {
    return errorResponse(error);
  }
}
