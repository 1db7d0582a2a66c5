import "server-only";
import { A2A_PROTOCOL_VERSION, A2A_VERSION_HEADER, formatSSEErrorEvent, formatSSEEvent, SSE_HEADERS } from "@a2a-js/sdk";
import {
  A2A_LEGACY_PROTOCOL_VERSION,
  isLegacyJsonRpcMethod,
  isV1JsonRpcMethod,
  LEGACY_METHOD_TASKS_RESUBSCRIBE,
} from "@a2a-js/sdk/compat/v0_3";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import { A2A_ERROR_CODE, JsonRpcRequestMalformedError } from "@a2a-js/sdk/errors";
import { JsonRpcTransportHandler, ServerCallContext, validateVersion } from "@a2a-js/sdk/server";
import type { Agent } from "@/lib/agent/types";
import { authenticateRequest, errorResponse, ownOrigin, readBody } from "@/lib/api/handler";
import { inRequestSpan, inSpan } from "@/lib/telemetry/trace";
import { agentCard } from "./card";
import { malformed, toA2AError } from "./errors";
import { RetraceRequestHandler } from "./request-handler";
import { withOrigin } from "./wire";

type RpcId = string | number | null;
type ErrorMapper = (error: unknown) => unknown;

/** The request object; anything else (null, an array, a number) as an empty one, which the transport calls invalid. */
function parse(body: string): { method?: unknown; id?: unknown } {
  const value = JSON.parse(body);
  return value && typeof value === "object" && !Array.isArray(value) ? value : {};
}

/** The methods that serve a request: the transport converts a request's params before it calls one. */
const METHODS = new Set<string | symbol>([
  "sendMessage",
  "sendMessageStream",
  "getTask",
  "listTasks",
  "cancelTask",
  "resubscribe",
  "createTaskPushNotificationConfig",
  "getTaskPushNotificationConfig",
  "listTaskPushNotificationConfigs",
  "deleteTaskPushNotificationConfig",
]);

async function* guarded<T>(results: AsyncGenerator<T>, origin: string): AsyncGenerator<T> {
  try {
    for await (const result of results) yield withOrigin(result, origin);
  } catch (error) {
    throw toA2AError(error);
  }
}

/**
 * `handler`, noting when a method is called, with file parts' URLs absolute at `origin` (lib/a2a/wire.ts), and
 * with every error it raises an A2A error (an unexpected one logged and answered as "Internal error", never its
 * JavaScript text).
 */
function watched(handler: RetraceRequestHandler, origin: string) {
  const state = { entered: false };
  const proxy = new Proxy(handler, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== "function" || !METHODS.has(key)) return value;
      return (...args: unknown[]) => {
        state.entered = true;
        const result = value.apply(target, args);
        if (Symbol.asyncIterator in Object(result)) return guarded(result, origin);
        return Promise.resolve(result).then(
          (value) => withOrigin(value, origin),
          (error) => Promise.reject(toA2AError(error)),
        );
      };
    },
  });
  return { handler: proxy, state };
}

/** SDK errors behind which no method ran are its conversion of params that do not have their method's shape. */
const INTERNAL_ERROR = -32603;

const envelope = (id: RpcId, mapError: ErrorMapper, error: unknown) => ({ jsonrpc: "2.0", id, error: mapError(error) });

/**
 * Streams JSON-RPC results as server-sent events. As the SDK's own JSON-RPC server does, an error before
 * the first event is a plain JSON-RPC error (except for v0.3 `tasks/resubscribe`, which always streams)
 * and a later one a final `event: error`. A reader that goes away stops reading, never the turn.
 */
/**
 * A v0.3 frame as kagent reads it: the status update that pauses a turn for the user's decision (input-required)
 * ends its stream, so it says `final: true`; the SDK's translation says so only of the terminal states.
 */
function pauseIsFinal(frame: unknown): unknown {
  const result = (frame as { result?: { kind?: string; status?: { state?: string }; final?: boolean } } | null)?.result;
  if (result?.kind === "status-update" && result.status?.state === "input-required") result.final = true;
  return frame;
}

async function sse(
  results: AsyncGenerator<unknown>,
  id: RpcId,
  mapError: ErrorMapper,
  alwaysStream: boolean,
  legacy = false,
): Promise<Response> {
  let first: IteratorResult<unknown> | undefined;
  if (!alwaysStream) {
    try {
      first = await results.next();
    } catch (error) {
      return Response.json(envelope(id, mapError, error));
    }
  }
  const encoder = new TextEncoder();
  const stream = new ReadableStream({
    async pull(controller) {
      try {
        const next = first ?? (await results.next());
        first = undefined;
        if (next.done) return controller.close();
        controller.enqueue(encoder.encode(formatSSEEvent(legacy ? pauseIsFinal(next.value) : next.value)));
      } catch (error) {
        controller.enqueue(encoder.encode(formatSSEErrorEvent(envelope(id, mapError, error))));
        controller.close();
      }
    },
    async cancel() {
      await results.return(undefined);
    },
  });
  return new Response(stream, { headers: SSE_HEADERS });
}

/**
 * One A2A JSON-RPC request for an authenticated user (docs/api.md, "A2A"), dispatched the way the SDK's Express
 * `jsonRpcHandler` with `legacyCompat` does — to its v1.0 transport or to its v0.3 one — except that a
 * known method name picks the version even without the `A2A-Version` header (absent means v0.3).
 */
async function serveJsonRpc(request: Request, body: string, userId: string, agent: Agent): Promise<Response> {
  const version = request.headers.get(A2A_VERSION_HEADER) || A2A_LEGACY_PROTOCOL_VERSION;
  let rpc: ReturnType<typeof parse>;
  try {
    rpc = parse(body);
  } catch {
    // JSON-RPC 2.0 says -32700; the SDK's transports answer "invalid request" for a body they cannot parse.
    const error = new JsonRpcRequestMalformedError({
      message: "Parse error: the body is not JSON",
      envelopeCode: A2A_ERROR_CODE.PARSE_ERROR,
    });
    return Response.json(envelope(null, JsonRpcTransportHandler.mapToJSONRPCError, error));
  }
  const method = rpc.method;
  const id = typeof rpc.id === "string" || typeof rpc.id === "number" ? rpc.id : null;
  const legacy = isLegacyJsonRpcMethod(method) || (!isV1JsonRpcMethod(method) && version === A2A_LEGACY_PROTOCOL_VERSION);
  const mapError = legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError : JsonRpcTransportHandler.mapToJSONRPCError;
  const origin = ownOrigin(request);
  const card = agentCard(agent, origin);
  try {
    validateVersion(version, card, "JSONRPC");
    const context = new ServerCallContext({
      user: { isAuthenticated: true, userName: userId },
      requestedVersion: legacy ? A2A_LEGACY_PROTOCOL_VERSION : A2A_PROTOCOL_VERSION,
    });
    const { handler, state } = watched(new RetraceRequestHandler(agent, card), origin);
    const transport = legacy ? new LegacyJsonRpcTransportHandler(handler) : new JsonRpcTransportHandler(handler);
    const result = await transport.handle(rpc, context);
    if (Symbol.asyncIterator in Object(result)) {
      return sse(result as AsyncGenerator<unknown>, id, mapError, legacy && method === LEGACY_METHOD_TASKS_RESUBSCRIBE, legacy);
    }
    const failed = result as { error?: { code?: number } };
    if (failed.error?.code === INTERNAL_ERROR && !state.entered) {
      return Response.json(envelope(id, mapError, malformed(`The params of ${String(method)} do not have the shape the method takes`)));
    }
    return Response.json(result);
  } catch (error) {
    return Response.json(envelope(id, mapError, error));
  }
}

/**
 * The A2A endpoint of the agent `agentOf` names (docs/api.md, "A2A"), at `/api/a2a/{agent}` and at kagent's
 * `/api/a2a/{namespace}/{agent}`: failures before JSON-RPC starts are answered in the REST envelope.
 */
export function serveA2A(request: Request, agentOf: () => Promise<Agent>): Promise<Response> {
  return inRequestSpan(request, "retrace.a2a", async () => {
    try {
      const caller = await inSpan("retrace.auth", {}, () => authenticateRequest(request));
      const agent = await agentOf();
      const body = await readBody(request);
      return caller.renew(await serveJsonRpc(request, body, caller.userId, agent));
    } catch (error) {
      return errorResponse(error);
    }
  });
}
