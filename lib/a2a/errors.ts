import { A2AError, JsonRpcRequestMalformedError, RequestMalformedError, TaskNotFoundError } from "@a2a-js/sdk/errors";
import { AppError } from "@/lib/errors";

/**
 * Store errors become invalid-params errors that keep our machine code: in `data` for v0.3 callers, in
 * the `google.rpc.ErrorInfo` metadata for v1.0 ones. Anything unexpected is logged, never leaked.
 */
export function toA2AError(error: unknown): A2AError {
  if (error instanceof A2AError) return error;
  if (error instanceof AppError) {
    return new JsonRpcRequestMalformedError({ message: error.message, data: { code: error.code }, metadata: { code: error.code } });
  }
  console.error(error);
  return new A2AError("Internal error");
}

export const malformed = (message: string) => new RequestMalformedError(message);

/** A task that is missing or not the caller's: the same answer, so nothing leaks. */
export function taskError(id: string, error: unknown): A2AError {
  return error instanceof AppError && error.status === 404 ? new TaskNotFoundError(`Task not found: ${id}`) : toA2AError(error);
}
