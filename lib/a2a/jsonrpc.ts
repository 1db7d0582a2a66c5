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
import { frameOf, type Reader, type TurnEvent } from "./frames";
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

/**
 * What the handler runs for this route in place of a streaming method: its events are written as frames here
 * (lib/a2a/frames.ts), not by the transport, whose wrapper translates each token's v1.0 event back for v0.3 callers.
 */
const STREAMS = new Map<string | symbol, "sendMessageEvents" | "resubscribeEvents">([
  ["sendMessageStream", "sendMessageEvents"],
  ["resubscribe", "resubscribeEvents"],
]);

/**
 * `handler`, noting when a method is called, with file parts' URLs absolute at `origin` (lib/a2a/wire.ts), and
 * with every error it raises an A2A error (an unexpected one logged and answered as "Internal error", never its
 * JavaScript text). A streaming method's events are kept in `state.events`: the transport gets an empty stream,
 * which it wraps and is never read (it converted the request's params, which is what it is called for).
 */
function watched(handler: RetraceRequestHandler, origin: string) {
  const state: { entered: boolean; events?: AsyncGenerator<TurnEvent> } = { entered: false };
  const proxy = new Proxy(handler, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== "function" || !METHODS.has(key)) return value;
      const stream = STREAMS.get(key);
      return (...args: unknown[]) => {
        state.entered = true;
        if (stream) {
          state.events = (target[stream] as (...a: unknown[]) => AsyncGenerator<TurnEvent>)(...args);
          return (async function* () {})();
        }
        return Promise.resolve(value.apply(target, args)).then(
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
 * Streams a method's events as server-sent events, each frame as the SDK's transport writes it. As the SDK's own
 * JSON-RPC server does, an error before the first event is a plain JSON-RPC error (except for v0.3
 * `tasks/resubscribe`, which always streams) and a later one a final `event: error`. A reader that goes away
 * stops reading, never the turn.
 */
async function sse(events: AsyncGenerator<TurnEvent>, reader: Reader, mapError: ErrorMapper, alwaysStream: boolean): Promise<Response> {
  const failure = (error: unknown) => envelope(reader.id, mapError, toA2AError(error));
  let first: IteratorResult<TurnEvent> | undefined;
  if (!alwaysStream) {
    try {
      first = await events.next();
    } catch (error) {
      return Response.json(failure(error));
    }
  }
  const encoder = new TextEncoder();
  // Set when the reader goes away: an event that was awaited then has nowhere to go.
  let gone = false;
  const stream = new ReadableStream({
    async pull(controller) {
      try {
        const next = first ?? (await events.next());
        first = undefined;
        if (gone) return;
        if (next.done) return controller.close();
        controller.enqueue(encoder.encode(formatSSEEvent(frameOf(next.value, reader))));
      } catch (error) {
        if (gone) return;
        controller.enqueue(encoder.encode(formatSSEErrorEvent(failure(error))));
        controller.close();
      }
    },
    async cancel() {
      gone = true;
      await events.return(undefined);
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
    if (state.events && Symbol.asyncIterator in Object(result)) {
      return sse(state.events, { id, legacy, origin }, mapError, legacy && method === LEGACY_METHOD_TASKS_RESUBSCRIBE);
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
