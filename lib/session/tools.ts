/**
 * Tool calls as the log keeps them (docs/semantics.md, "Tools"): which calls acted in the world, which wait
 * for the user's decision (ADK's `adk_request_confirmation`), and the decision itself. Pure functions.
 */
import type { AdkEvent, Json, Part, State } from "./types";

/** ADK's long-running function call that asks the user to confirm another call. */
export const REQUEST_CONFIRMATION = "adk_request_confirmation";

/** The session state key listing the tools the user allowed for the rest of the chat ("Always allow in this chat"). */
export const ALWAYS_ALLOW_KEY = "retrace:always_allow";
/** Keys only the app writes on the user's decision: a model's or the demo's `update_state` may not. */
export const isReservedKey = (key: string) => key.startsWith("retrace:");

export interface FunctionCall {
  id: string;
  name: string;
  args: Record<string, Json>;
}

/**
 * What an event's `custom_metadata.retrace_tool` says of an MCP call: its server and MCP tool name, whether it
 * acts in the world (`external`: every MCP tool not annotated read-only) and, on its response, whether the call
 * reached the server (`executed`; false when it was denied, refused or never configured).
 */
export interface ToolMark {
  server: string;
  tool: string;
  external: boolean;
  executed?: boolean;
}

export function toolMark(event: AdkEvent): ToolMark | undefined {
  const mark = (event.custom_metadata as { retrace_tool?: ToolMark } | undefined)?.retrace_tool;
  return mark && typeof mark === "object" ? mark : undefined;
}

/** The event's response reached the world: an external call that was executed. */
export const actedInWorld = (event: AdkEvent) => {
  const mark = toolMark(event);
  return Boolean(mark?.external && mark.executed);
};

/** ADK's ToolConfirmation, as the confirmation call asks for it and the user's response answers it. */
export interface ToolConfirmation {
  hint?: string;
  confirmed: boolean;
  payload?: { rejection_reason?: string; always_allow?: boolean } | null;
}

/** A call waiting for the user: the confirmation call's id and the call it confirms. */
export interface PendingCall {
  confirmationId: string;
  call: FunctionCall;
}

/** The parts of the confirmation event that pauses `calls` (one `adk_request_confirmation` per call), and their ids. */
export function confirmationParts(calls: FunctionCall[], newId: () => string): { parts: Part[]; ids: string[] } {
  const ids = calls.map(() => newId());
  const parts = calls.map((call, i) => ({
    function_call: {
      id: ids[i],
      name: REQUEST_CONFIRMATION,
      args: {
        originalFunctionCall: { id: call.id, name: call.name, args: call.args },
        toolConfirmation: { hint: `Approve ${call.name}?`, confirmed: false },
      },
    },
  }));
  return { parts, ids };
}

/** The confirmation calls of an invocation's events that no response answers yet, in order. */
export function pendingCalls(events: readonly AdkEvent[]): PendingCall[] {
  const answered = new Set(
    events
      .flatMap((e) => e.content?.parts ?? [])
      .flatMap((p) => (p.function_response?.name === REQUEST_CONFIRMATION ? [p.function_response.id] : [])),
  );
  const pending: PendingCall[] = [];
  for (const part of events.flatMap((e) => e.content?.parts ?? [])) {
    const call = part.function_call;
    if (call?.name !== REQUEST_CONFIRMATION || !call.id || answered.has(call.id)) continue;
    const original = (call.args as { originalFunctionCall?: FunctionCall } | undefined)?.originalFunctionCall;
    if (original?.id && original.name)
      pending.push({ confirmationId: call.id, call: { id: original.id, name: original.name, args: original.args ?? {} } });
  }
  return pending;
}

/** A user's decision on a paused task (kagent's decision data part, docs/api.md "Tool approval"). */
export type Decision =
  | { decision_type: "approve" | "reject"; rejection_reason?: string; rejection_reasons?: Record<string, string>; always_allow?: boolean }
  | {
      decision_type: "batch";
      decisions: Record<string, "approve" | "reject">;
      rejection_reasons?: Record<string, string>;
      always_allow?: boolean;
    };

/** Each pending call's confirmation as the decision answers it; a batch must name every pending call, and only those. */
export function confirmations(
  pending: PendingCall[],
  decision: Decision,
): { ok: true; answers: ToolConfirmation[] } | { ok: false; error: string } {
  if (decision.decision_type === "batch") {
    const ids = pending.map((p) => p.call.id);
    const missing = ids.filter((id) => !Object.hasOwn(decision.decisions, id));
    const unknown = Object.keys(decision.decisions).filter((id) => !ids.includes(id));
    if (missing.length || unknown.length) {
      return {
        ok: false,
        error: `A batch decision names each waiting call once (${[...missing.map((id) => `missing ${id}`), ...unknown.map((id) => `unknown ${id}`)].join(", ")})`,
      };
    }
  }
  const answers = pending.map(({ call }) => {
    const confirmed = decision.decision_type === "batch" ? decision.decisions[call.id] === "approve" : decision.decision_type === "approve";
    const reason = decision.rejection_reasons?.[call.id] ?? ("rejection_reason" in decision ? decision.rejection_reason : undefined);
    const payload = confirmed ? (decision.always_allow ? { always_allow: true } : null) : reason ? { rejection_reason: reason } : null;
    return { confirmed, ...(payload ? { payload } : {}) };
  });
  return { ok: true, answers };
}

/** The user's response to each confirmation call: ADK's ToolConfirmation as the `adk_request_confirmation` function response. */
export const decisionParts = (pending: PendingCall[], answers: ToolConfirmation[]): Part[] =>
  pending.map((p, i) => ({ function_response: { id: p.confirmationId, name: REQUEST_CONFIRMATION, response: { ...answers[i] } } }));

/** The tools a chat's state allows without asking. */
export function alwaysAllowed(state: State): string[] {
  const value = state[ALWAYS_ALLOW_KEY];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** The state delta recording the tools newly allowed for the rest of the chat, or none. */
export function allowDelta(state: State, pending: PendingCall[], answers: ToolConfirmation[]): State {
  const allowed = new Set(alwaysAllowed(state));
  const before = allowed.size;
  for (const [i, a] of answers.entries()) if (a.confirmed && a.payload?.always_allow) allowed.add(pending[i].call.name);
  return allowed.size > before ? { [ALWAYS_ALLOW_KEY]: [...allowed].sort() } : {};
}

/** What the model is told of a call the user denied. */
export function denial(confirmation: ToolConfirmation): Record<string, Json> {
  const reason = confirmation.payload?.rejection_reason;
  return { error: `The user denied this call${reason ? `: ${reason}` : "."}`, denied: true };
}
