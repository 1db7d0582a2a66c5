/** What the chat shows and sends about tool calls: how many calls a rewind would leave done in the world, and a decision's data part. */
import type { ChatTree } from "@/lib/session/tree";
import { invocationIdOf } from "@/lib/task/metadata";
import type { Task } from "@/lib/task/types";
import { siblingsOf } from "../turn/turn-rows";

/** Calls that acted in the world among `tasks` (`metadata.retrace_external_calls`, docs/api.md "Tasks"). */
export const actedIn = (tasks: Task[]) => tasks.reduce((n, t) => n + (Number(t.metadata?.retrace_external_calls) || 0), 0);

/** What a rewind before `invocationId` would hide of the loaded turns: that turn and every later one. */
export function actedFrom(tasks: Task[], invocationId: string): number {
  const index = tasks.findIndex((t) => invocationIdOf(t) === invocationId);
  return index < 0 ? 0 : actedIn(tasks.slice(index));
}

/** What switching to another version of a turn would hide: the version shown now and every later turn. */
export function actedFromSiblingOf(tasks: Task[], invocationId: string): number {
  const index = tasks.findIndex((t) => siblingsOf(t)?.invocationIds.includes(invocationId));
  return index < 0 ? 0 : actedIn(tasks.slice(index));
}

/**
 * What showing the version whose last turn is `leaf` (null: the empty chat) would hide of the loaded turns: those
 * not on its way from the first turn, by the map's parent links. A turn the chat shows now hides nothing.
 */
export function actedOffPath(tasks: Task[], tree: ChatTree, leaf: string | null, switching = false): number {
  if (switching && tasks.some((t) => invocationIdOf(t) === leaf)) return 0;
  const parent = new Map(tree.turns.map((t) => [t.invocation_id, t.parent_invocation_id]));
  const kept = new Set<string>();
  for (let at = leaf; at; at = parent.get(at) ?? null) kept.add(at);
  return actedIn(tasks.filter((t) => !kept.has(invocationIdOf(t) ?? "")));
}

/** One call's decision, as the card collects it. */
export interface CallDecision {
  approve: boolean;
  reason?: string;
  always?: boolean;
}

/**
 * kagent's decision data part for the waiting calls (docs/api.md, "Tool approval"): one decision for them all
 * when there is one call, else a batch by call id. "Always allow" covers the approved tools.
 */
export function decisionData(decisions: Map<string, CallDecision>): Record<string, unknown> {
  const entries = [...decisions.entries()];
  const always = entries.some(([, d]) => d.approve && d.always) ? { retrace_always_allow: true } : {};
  if (entries.length === 1) {
    const [, only] = entries[0];
    return only.approve
      ? { decision_type: "approve", ...always }
      : { decision_type: "reject", ...(only.reason ? { rejection_reason: only.reason } : {}) };
  }
  const reasons = Object.fromEntries(entries.filter(([, d]) => !d.approve && d.reason).map(([id, d]) => [id, d.reason]));
  return {
    decision_type: "batch",
    decisions: Object.fromEntries(entries.map(([id, d]) => [id, d.approve ? "approve" : "reject"])),
    ...(Object.keys(reasons).length ? { rejection_reasons: reasons } : {}),
    ...always,
  };
}
