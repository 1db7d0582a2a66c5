import { serveJsonRpc } from "@/lib/a2a/jsonrpc";
import { getAgent } from "@/lib/agent/registry";
import { authenticateRequest, errorResponse, readBody } from "@/lib/api/handler";

/** A2A JSON-RPC 2.0 for one agent, protocol v1.0 and v0.3 (docs/api.md, "A2A"); the browser chat uses it too. */
export async function POST(request: Request, route: { params: Promise<{ agent: string }> }) {
  try {
    const caller = await authenticateRequest(request);
    const agent = getAgent((await route.params).agent);
    const body = await readBody(request);
    return caller.renew(await serveJsonRpc(request, body, caller.userId, agent));
  } catch (error) {
    return errorResponse(error);
  }
}
