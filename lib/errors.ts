import type { z } from "zod";
import { MAX_JSON_DEPTH } from "@/lib/session/limits";
import { UNCLEAN_TEXT } from "@/lib/session/text";

/** Errors that carry their HTTP status and machine code (docs/api.md, "Envelope"). */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "AppError";
  }
}

export class NotFoundError extends AppError {
  constructor(message = "Not found") {
    super(404, "not_found", message);
  }
}

export class AuthError extends AppError {
  constructor(message = "Not authenticated") {
    super(401, "unauthorized", message);
  }
}

export class ValidationError extends AppError {
  constructor(message: string) {
    super(400, "invalid_request", message);
  }
}

/** A turn sent to another agent than the one its chat belongs to. */
export class WrongAgentError extends AppError {
  constructor(sessionId: string, agent: string) {
    super(400, "invalid_request", `Session ${sessionId} belongs to agent ${agent}`);
  }
}

export class InvocationNotFoundError extends AppError {
  constructor(invocationId: string) {
    super(400, "invocation_not_found", `Invocation ID not found: ${invocationId}`);
  }
}

export class SessionBusyError extends AppError {
  constructor() {
    super(409, "session_busy", "A turn is running in this session; wait for it to finish or stop it.");
  }
}

/** A turn sent from a view of the chat that is no longer its history (another tab rewound, forked, switched or sent). */
export class HistoryChangedError extends AppError {
  constructor() {
    super(
      409,
      "history_changed",
      "This chat changed in another tab or window, so your message was not sent. It now shows the latest; send again if you still want to.",
    );
  }
}

/** A send into a chat whose last turn waits for the user's decision on a tool call (docs/semantics.md, "Tools"). */
export class ApprovalPendingError extends AppError {
  constructor() {
    super(409, "approval_pending", "A tool call is waiting for your decision: approve or deny it first (or rewind the chat).");
  }
}

export class InvalidReferenceError extends AppError {
  constructor(message: string) {
    super(422, "invalid_reference", message);
  }
}

/** JSON nested deeper than MAX_JSON_DEPTH (docs/api.md, "Requests"). */
export class JsonTooDeepError extends AppError {
  constructor(message = `JSON is nested deeper than ${MAX_JSON_DEPTH} levels`) {
    super(400, "json_too_deep", message);
  }
}

/** Text with a NUL or an unpaired surrogate (lib/session/text.ts); `where` says which. */
export class UncleanTextError extends AppError {
  constructor(where: string) {
    super(400, "invalid_text", `${where} ${UNCLEAN_TEXT}`);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor() {
    super(413, "payload_too_large", "Request body is larger than 10 MiB");
  }
}

/** A user's request that would write app-wide (`app:`) state, which only the operator may set. */
export class ForbiddenScopeError extends AppError {
  constructor(keys: string[]) {
    super(403, "forbidden_scope", `Only the operator can set app-wide state (${keys.join(", ")})`);
  }
}

export class QuotaExceededError extends AppError {
  constructor(what: string) {
    super(429, "quota_exceeded", `Quota exceeded: ${what}`);
  }
}

/** A turn's writes after another instance took over its session (its lease had expired). */
export class StaleTurnError extends AppError {
  constructor() {
    super(409, "stale_turn", "This turn no longer holds its session; its writes are refused.");
  }
}

/** What the API says when the database does not answer: REST's 503 `unavailable`, A2A's JSON-RPC -32000. */
export const STORE_UNAVAILABLE = { code: "unavailable", message: "The database is unavailable; try again in a moment" } as const;

/**
 * The database went away (a restart, a cut connection): the same request may succeed a moment later.
 * PostgreSQL's connection exceptions (class 08) and shutdowns (57P01–57P03), a socket the server closed or
 * refused, and node-postgres's own words for a connection it lost.
 */
export function isStoreUnavailable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof code === "string" ? code : "";
  return (
    /^(08|57P0[123]$)/.test(text) ||
    ["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT"].includes(text) ||
    /Connection terminated|not queryable/.test(typeof message === "string" ? message : "")
  );
}

/** Whether `message` names `field` (a key; never an array index) as a word of its own. */
const names = (message: string, field: PropertyKey | undefined) =>
  typeof field === "string" && new RegExp(`\\b${field.replace(/\W/g, "\\$&")}\\b`).test(message);

/**
 * A zod error as a person reads it, on one line: each issue's message, after the field it is about unless it
 * names that field already ("limit must be at most 500", "name: Invalid input"), joined by "; ". Not
 * `z.prettifyError`, whose "✖ " bullets and "→ at" lines reach a client's toasts verbatim.
 */
export function issuesText(error: z.ZodError): string {
  return error.issues
    .map(({ path, message }) => (path.length === 0 || names(message, path.at(-1)) ? message : `${path.join(".")}: ${message}`))
    .join("; ");
}
