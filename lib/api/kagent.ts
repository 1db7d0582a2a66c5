import "server-only";
/**
 * kagent's names for Retrace's agents (docs/api.md, "kagent's UI"): kagent's UI calls an agent
 * `{namespace}/{name}`, and all of Retrace's agents live in one namespace, RETRACE_KAGENT_NAMESPACE.
 */
import { getAgent } from "@/lib/agent/registry";
import type { Agent } from "@/lib/agent/types";
import { config } from "@/lib/config";
import { AppError, InvalidReferenceError } from "@/lib/errors";

/** The agent a kagent path names (`/api/a2a/{namespace}/{agent}`, `/api/sessions/agent/{namespace}/{agent}`); another namespace has none. */
export function namespacedAgent(namespace: string, name: string): Agent {
  if (namespace !== config().kagentNamespace) throw new AppError(404, "agent_not_found", `Unknown agent: ${namespace}/${name}`);
  return getAgent(name);
}

/** The agent name an `agent_ref` holds: `kagent/demo` (the namespace must be Retrace's), or just `demo`. */
export function agentOfRef(ref: string): string {
  const slash = ref.indexOf("/");
  if (slash < 0) return ref;
  if (ref.slice(0, slash) !== config().kagentNamespace) throw new InvalidReferenceError(`Unknown agent: ${ref}`);
  return ref.slice(slash + 1);
}

/** The A2A URL kagent's UI posts to for `agent`, under `origin`. */
export const namespacedA2AUrl = (origin: string, agent: string) =>
  `${origin}/api/a2a/${config().kagentNamespace}/${encodeURIComponent(agent)}`;
