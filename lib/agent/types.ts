import type { AdkEvent, EventActions, Part, State } from "@/lib/session/types";

/** What an agent sees of one invocation. */
export interface InvocationContext {
  userId: string;
  sessionId: string;
  /** The running turn's task: the store accepts this turn's writes while it holds the session. */
  taskId: string;
  agentName: string;
  invocationId: string;
  /** The effective history, ending with this invocation's user event (docs/semantics.md, "Effective history"). */
  history: AdkEvent[];
  /** The session's merged state as it is now. */
  state(): Promise<State>;
  signal: AbortSignal;
}

/**
 * An agent streams text deltas (shown live, never stored) and emits whole events, which the
 * runtime persists: a final text, a function call, or a function response with its actions.
 */
export type AgentOutput = { type: "text-delta"; text: string } | { type: "event"; parts: Part[]; actions?: EventActions };

export interface Agent {
  name: string;
  description: string;
  run(ctx: InvocationContext): AsyncIterable<AgentOutput>;
}
