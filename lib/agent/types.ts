import type { AdkEvent, EventActions, Part, State } from "@/lib/session/types";
import type { Price, UsageMetadata } from "@/lib/session/usage";

/** A model an agent offers: the name a message picks it by (`retrace_model`), and its price when one is configured. */
export interface ModelInfo {
  name: string;
  price?: Price;
}

/** What `GET /api/agents` and the pages show of each agent: its models too, the first the default. */
export interface AgentInfo {
  name: string;
  description: string;
  models: ModelInfo[];
}

/** What an agent sees of one invocation. */
export interface InvocationContext {
  userId: string;
  sessionId: string;
  /** The running turn's task: the store accepts this turn's writes while it holds the session. */
  taskId: string;
  agentName: string;
  /** The model this turn runs on: one of the agent's, by name. */
  model: string;
  invocationId: string;
  /** The user's event this invocation began with. */
  userEvent: AdkEvent;
  /**
   * The effective history as the invocation began, ending with its user event (docs/semantics.md,
   * "Effective history"), at most its last CONTEXT_EVENTS events: read on the first call, for the agents
   * that need more than the user's event.
   */
  history(): Promise<AdkEvent[]>;
  /** The session's merged state as it is now. */
  state(): Promise<State>;
  signal: AbortSignal;
}

/**
 * An agent streams text deltas (shown live, never stored) and emits whole events, which the
 * runtime persists: a final text, a function call, or a function response with its actions. The
 * event a model call produced first carries that call's usage, as the provider reported it.
 */
export type AgentOutput =
  | { type: "text-delta"; text: string }
  | { type: "event"; parts: Part[]; actions?: EventActions; usage?: UsageMetadata };

export interface Agent {
  name: string;
  description: string;
  /** The models a turn may run on; the first is the default. */
  models: ModelInfo[];
  run(ctx: InvocationContext): AsyncIterable<AgentOutput>;
}
