/**
 * The model a turn runs on (docs/semantics.md, "Models, tokens and cost"): picked when it begins, named on each of
 * its events, and what its calls used, metered.
 */
import { randomUUID } from "node:crypto";
import { UnknownModelError } from "@/lib/errors";
import type { AdkEvent, EventActions, Part } from "@/lib/session/types";
import { addUsage, costOf, type UsageMetadata, usageOf } from "@/lib/session/usage";
import type { Task } from "@/lib/task/types";
import type { Agent, ModelInfo } from "./types";

export type EventOf = (author: string, parts: Part[], extra?: Partial<AdkEvent>, actions?: EventActions) => AdkEvent;

/** The events of one invocation, as the runtime writes them; a turn's own carry the model it runs on. */
export const eventsOf =
  (invocationId: string, model?: string): EventOf =>
  (author, parts, extra = {}, actions = {}) => ({
    id: randomUUID(),
    invocation_id: invocationId,
    author,
    timestamp: Date.now() / 1000,
    content: { role: author === "user" ? "user" : "model", parts },
    actions: { state_delta: {}, artifact_delta: {}, ...actions },
    ...(author === "user" ? {} : { partial: false }),
    ...extra,
    // Which of the agent's models the turn ran on (docs/semantics.md, "Models, tokens and cost").
    ...(model ? { custom_metadata: { retrace_model: model, ...extra.custom_metadata } } : {}),
  });

/** The model a turn asks for by name (the agent's first when none): unknown is refused before anything is written. */
export function pickModel(agent: Agent, name: string | undefined): ModelInfo {
  const model = name === undefined ? agent.models[0] : agent.models.find((m) => m.name === name);
  if (!model)
    throw new UnknownModelError(
      agent.name,
      name ?? "",
      agent.models.map((m) => m.name),
    );
  return model;
}

/** The model a stored turn ran on (the agent's first when it names none, or one the agent no longer lists). */
export const modelOf = (agent: Agent, task: Task): ModelInfo =>
  agent.models.find((m) => m.name === task.metadata?.retrace_model) ?? agent.models[0];

/**
 * What one run of a turn's model calls reported (docs/semantics.md, "Models, tokens and cost"): each call's usage
 * goes on its event; at the end it is added to what the task said as the run began (a resumed turn's), and priced.
 */
export function usageMeter(task: Task, model: ModelInfo) {
  const before = usageOf(task.metadata?.kagent_usage_metadata);
  let used: UsageMetadata | null = null;
  return {
    /** The event fields of a model call's output, its usage counted. */
    count(reported?: UsageMetadata): Partial<AdkEvent> {
      if (!reported) return {};
      used = used ? addUsage(used, reported) : reported;
      return { usage_metadata: reported };
    },
    /** Puts the turn's total (and cost) on its task; answers the tokens this run used, to charge once. */
    settle(): number {
      if (!used) return 0;
      const total = before ? addUsage(before, used) : used;
      const { price } = model;
      task.metadata = { ...task.metadata, kagent_usage_metadata: total, ...(price ? { retrace_cost: costOf(total, price) } : {}) };
      return used.total_token_count;
    },
  };
}
