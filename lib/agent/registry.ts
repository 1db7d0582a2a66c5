import "server-only";
import { config } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { demoAgent } from "./demo-agent";
import { modelAgent } from "./model-agent";
import type { Agent, AgentInfo } from "./types";

// Model agents are built once per configuration, not on every request.
const perProcess = globalThis as typeof globalThis & { __retraceAgents?: { from: object; agents: Agent[] } };

/** The demo agent first, then the configured model agents. */
function agents(): Agent[] {
  const current = config();
  if (perProcess.__retraceAgents?.from !== current)
    perProcess.__retraceAgents = { from: current, agents: [demoAgent, ...current.modelAgents.map(modelAgent)] };
  return perProcess.__retraceAgents.agents;
}

export function listAgents(): AgentInfo[] {
  return agents().map(({ name, description, models }) => ({ name, description, models }));
}

export function getAgent(name: string): Agent {
  const agent = agents().find((a) => a.name === name);
  if (!agent) throw new AppError(404, "agent_not_found", `Unknown agent: ${name}`);
  return agent;
}
