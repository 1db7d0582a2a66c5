import type { McpServerConfig } from "@/lib/config";
import type { FunctionCall } from "@/lib/session/tools";
import type { AdkEvent, EventActions, Json, Part, State } from "@/lib/session/types";

/** A tool as the model is offered it: a name unique in the agent and valid for OpenAI functions, and its JSON schema. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** What an agent sees of one invocation. */
export interface InvocationContext {
  userId: string;
  sessionId: string;
  /** The running turn's task: the store accepts this turn's writes while it holds the session. */
  taskId: string;
  agentName: string;
  invocationId: string;
  /** The user's event this invocation began with. */
  userEvent: AdkEvent;
  /**
   * The effective history as the invocation began (as it resumed, for a turn that waited for the user's
   * decision: its own events so far included), ending with its user event (docs/semantics.md, "Effective
   * history"), at most its last CONTEXT_EVENTS events: read on the first call, for the agents that need more
   * than the user's event.
   */
  history(): Promise<AdkEvent[]>;
  /** The session's merged state as it is now. */
  state(): Promise<State>;
  /** The tools the agent may call: the four state and file tools and its MCP servers' tools. */
  tools(): Promise<ToolSpec[]>;
  /** Set when the turn resumes after the user decided on its waiting calls: those calls and their responses. */
  resumed?: { calls: FunctionCall[]; responses: Record<string, Json>[] };
  signal: AbortSignal;
}

/**
 * An agent streams text deltas (shown live, never stored), emits whole text events, and asks for tool calls,
 * which the runtime runs (behind the approval gate) and stores; the `yield` of a `calls` output answers with
 * their responses, in order. A call that waits for the user's decision ends the turn there: the generator is
 * not resumed, and the turn goes on in a new run with `resumed` set (docs/semantics.md, "Tools").
 */
export type AgentOutput =
  | { type: "text-delta"; text: string }
  | { type: "event"; parts: Part[]; actions?: EventActions }
  | { type: "calls"; calls: FunctionCall[] };

export type CallResponses = Record<string, Json>[];

export interface Agent {
  name: string;
  description: string;
  /** Its MCP tool servers. */
  mcp: McpServerConfig[];
  run(ctx: InvocationContext): AsyncGenerator<AgentOutput, void, CallResponses | undefined>;
}
