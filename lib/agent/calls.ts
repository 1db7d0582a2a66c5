import "server-only";
import { randomUUID } from "node:crypto";
import { confirmationParts, denial, type FunctionCall, type PendingCall, type ToolConfirmation, type ToolMark } from "@/lib/session/tools";
import type { AdkEvent, EventActions, Part, State } from "@/lib/session/types";
import { execute, markOf, type Outcome, type Plan, type Toolbox } from "./toolbox";
import type { CallResponses, InvocationContext } from "./types";

type EventOf = (parts: Part[], extra?: Partial<AdkEvent>, actions?: EventActions) => AdkEvent;

const marked = (mark: ToolMark | undefined): Partial<AdkEvent> => (mark ? { custom_metadata: { retrace_tool: mark } } : {});

/**
 * The runtime's side of an agent's tool calls (docs/semantics.md, "Tools"): each call is stored, passes the
 * approval gate, runs (or is refused) and its response is stored; a call that must wait for the user is
 * stored with ADK's confirmation call and never reaches its server until the user approves it. `emit` queues
 * an event for the turn's next write; `store` writes what is queued.
 */
export function callRunner(deps: {
  ctx: InvocationContext;
  toolbox: Toolbox;
  /** The chat's own state as the turn began or resumed, for the gate. */
  state: State;
  event: EventOf;
  emit: (e: AdkEvent) => void;
  store: () => Promise<void>;
}) {
  const { ctx, toolbox, state, event, emit, store } = deps;
  const respond = async (call: FunctionCall, outcome: Outcome) => {
    emit(
      event([{ function_response: { id: call.id, name: call.name, response: outcome.response } }], marked(outcome.mark), outcome.actions),
    );
    await store();
    return outcome.response;
  };
  /** A call that acts in the world is stored before it is made: a crash while it runs still shows it was sent. */
  const run = async (call: FunctionCall, plan: Plan) => {
    if (plan.kind === "mcp" && plan.tool.external && plan.approval !== "never") await store();
    return respond(call, await execute(ctx, plan, call));
  };
  return {
    /** Runs the calls of one step in order; those that must wait end the turn (`paused`), the others run meanwhile. */
    async run(calls: FunctionCall[]): Promise<{ responses: CallResponses } | { paused: FunctionCall[] }> {
      const responses: CallResponses = [];
      const paused: FunctionCall[] = [];
      for (const call of calls) {
        const plan = await toolbox.plan(call.name, state);
        emit(event([{ function_call: call }], marked(plan.kind === "mcp" ? markOf(plan) : undefined)));
        if (plan.kind === "mcp" && plan.approval === "ask") paused.push(call);
        else responses.push(await run(call, plan));
      }
      return paused.length ? { paused } : { responses };
    },
    /** The event that pauses the turn on `calls`: one `adk_request_confirmation` call each, long-running. */
    pause(calls: FunctionCall[]): AdkEvent {
      const { parts, ids } = confirmationParts(calls, () => `adk-${randomUUID()}`);
      return event(parts, { long_running_tool_ids: ids });
    },
    /** After the user's decision: each approved call runs (its gate asked again: the operator may have refused it since), each denied one is answered so. */
    async decided(pending: PendingCall[], answers: ToolConfirmation[]): Promise<CallResponses> {
      const responses: CallResponses = [];
      for (const [i, { call }] of pending.entries()) {
        const plan = await toolbox.plan(call.name, state);
        if (answers[i].confirmed) responses.push(await run(call, plan));
        else
          responses.push(
            await respond(call, { response: denial(answers[i]), mark: plan.kind === "mcp" ? markOf(plan, false) : undefined }),
          );
      }
      return responses;
    },
  };
}
