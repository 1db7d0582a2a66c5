import {
  A2AError,
  JsonRpcRequestMalformedError,
  JsonRpcTransportError,
  RequestMalformedError,
  TaskNotFoundError,
} from "@a2a-js/sdk/errors";
import { AppError, isStoreUnavailable, STORE_UNAVAILABLE } from "@/lib/errors";

/** JSON-RPC's code for "the database is unavailable": a server error of its own range (-32000..-32099), not A2A's. */
const STORE_UNAVAILABLE_CODE = -32000;

/**
 * Store errors become invalid-params errors that keep our machine code: in `data` for v0.3 callers, in
 * the `google.rpc.ErrorInfo` metadata for v1.0 ones. A database that does not answer is -32000, which says
 * so (REST's 503 `unavailable`; its `data` too for v0.3). Anything unexpected is logged, never leaked.
 */
export function toA2AError(error: unknown): A2AError {
  if (error instanceof A2AError) return error;
  if (error instanceof AppError) {
    return new JsonRpcRequestMalformedError({ message: error.message, data: { code: error.code }, metadata: { code: error.code } });
  }
  console.error(error);
  if (isStoreUnavailable(error)) {
    const { code, message } = STORE_UNAVAILABLE;
    return new JsonRpcTransportError({ jsonrpc: "2.0", id: null, error: { code: STORE_UNAVAILABLE_CODE, message, data: { code } } });
  }
  return new A2AError("Internal error");
}

export const malformed = (message: string) => new RequestMalformedError(message);

/** A task that is missing or not the caller's: the same answer, so nothing leaks. */
export function taskError(id: string, error: unknown): A2AError {
  return error instanceof AppError && error.status === 404 ? new TaskNotFoundError(`Task not found: ${id}`) : toA2AError(error);
}
