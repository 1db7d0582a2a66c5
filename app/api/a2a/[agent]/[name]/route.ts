import { serveA2A } from "@/lib/a2a/jsonrpc";
import { namespacedAgent } from "@/lib/api/kagent";

/**
 * The same endpoint where kagent's UI posts, `/api/a2a/{namespace}/{agent}` (docs/api.md, "kagent's UI"). Next.js
 * names one level's dynamic segment once, so the namespace is `agent` here and the agent `name`.
 */
export async function POST(request: Request, route: { params: Promise<{ agent: string; name: string }> }) {
  return serveA2A(request, async () => {
    const { agent: namespace, name } = await route.params;
    return namespacedAgent(namespace, name);
  });
}
