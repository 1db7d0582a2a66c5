import { AppError } from "@/lib/errors";
import { demoAgent } from "./demo-agent";
import { modelAgent } from "./model-agent";
import { modelAgentConfigs } from "./model-config";
import type { Agent } from "./types";

/** The demo agent first, then the configured model agents. */
function agents(): Agent[] {
  return [demoAgent, ...modelAgentConfigs().map(modelAgent)];
}

export function listAgents(): { name: string; description: string }[] {
  return agents().map(({ name, description }) => ({ name, description }));
}

export function getAgent(name: string): Agent {
  const agent = agents().find((a) => a.name === name);
  if (!agent) throw new AppError(404, "agent_not_found", `Unknown agent: ${name}`);
  return agent;
}
