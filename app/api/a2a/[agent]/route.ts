import { A2AError, JsonRpcTransportHandler } from "@a2a-js/sdk/server";
import { RetraceRequestHandler } from "@/lib/a2a/request-handler";
import { getAgent } from "@/lib/agent/registry";
import { errorResponse, getUserId, readBody } from "@/lib/api/handler";

type JsonRpcId = string | number | null;

function requestId(body: string): JsonRpcId {
  try {
    const id = JSON.parse(body)?.id;
    return typeof id === "string" || typeof id === "number" ? id : null;
  } catch {
    return null;
  }
}

function rpcError(id: JsonRpcId, error: unknown) {
  const a2a = error instanceof A2AError ? error : A2AError.internalError("The agent failed");
  if (!(error instanceof A2AError)) console.error(error);
  return { jsonrpc: "2.0", id, error: a2a.toJSONRPCError() };
}

/** Streams JSON-RPC results as server-sent events; an error mid-stream becomes a final error event. */
function sse(results: AsyncGenerator<unknown>, id: JsonRpcId): Response {
  const encoder = new TextEncoder();
  const stream = new ReadableStream({
    async pull(controller) {
      try {
        const { value, done } = await results.next();
        if (done) return controller.close();
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(value)}\n\n`));
      } catch (error) {
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(rpcError(id, error))}\n\n`));
        controller.close();
      }
    },
    async cancel() {
      await results.return(undefined);
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", connection: "keep-alive" },
  });
}

/** A2A JSON-RPC 2.0 for one agent (SPEC §4.5); the browser chat uses it too. */
export async function POST(request: Request, route: { params: Promise<{ agent: string }> }) {
  try {
    const userId = await getUserId(request);
    const agent = getAgent((await route.params).agent);
    const body = await readBody(request);
    const url = new URL(request.url);
    const transport = new JsonRpcTransportHandler(new RetraceRequestHandler(agent, userId, `${url.origin}${url.pathname}`));
    const result = await transport.handle(body);
    if (Symbol.asyncIterator in Object(result)) return sse(result as AsyncGenerator<unknown>, requestId(body));
    return Response.json(result);
  } catch (error) {
    return errorResponse(error);
  }
}
