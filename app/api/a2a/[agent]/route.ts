import { serveA2A } from "@/lib/a2a/jsonrpc";
import { getAgent } from "@/lib/agent/registry";

/** A2A JSON-RPC 2.0 for one agent, protocol v1.0 and v0.3 (docs/api.md, "A2A"); the browser chat uses it too. */
export async function POST(request: Request, route: { params: Promise<{ agent: string }> }) {
  return serveA2A(request, async () => getAgent((await route.params).agent));
}
