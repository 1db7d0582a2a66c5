import "server-only";
import { z } from "zod";
import type { Approval, McpServerConfig } from "@/lib/config";
import { alwaysAllowed, type FunctionCall, type ToolMark } from "@/lib/session/tools";
import type { State } from "@/lib/session/types";
import { callTool, serverTools, ToolServerUnreachable } from "./mcp/connections";
import { toResponse } from "./mcp/result";
import { executeTool, type ToolResult, toolDescriptions, toolInputs } from "./tools";
import type { InvocationContext, ToolSpec } from "./types";

interface McpTool extends ToolSpec {
  server: McpServerConfig;
  /** The tool's own name on its server. */
  tool: string;
  /** It acts in the world: every MCP tool not annotated `readOnlyHint: true`. */
  external: boolean;
}

/** How a call runs: one of the four state and file tools, an MCP tool under its approval, or nothing known by that name. */
export type Plan = { kind: "builtin" } | { kind: "mcp"; tool: McpTool; approval: Approval } | { kind: "unknown" };

/** What a call answered and the actions it records, with, for an MCP call, its mark (lib/session/tools.ts). */
export interface Outcome extends ToolResult {
  mark?: ToolMark;
}

const builtinSpecs: ToolSpec[] = Object.entries(toolInputs).map(([name, schema]) => ({
  name,
  description: toolDescriptions[name as keyof typeof toolInputs],
  inputSchema: z.toJSONSchema(schema) as Record<string, unknown>,
}));

/** `<server>__<tool>`, with what OpenAI function names cannot hold replaced, at most 64 characters. */
export const exposedName = (server: string, tool: string) => `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);

/** The tools of an agent's MCP servers; a server that cannot be reached is left out of this turn (and logged). */
async function mcpTools(servers: McpServerConfig[]): Promise<McpTool[]> {
  const listed = await Promise.all(
    servers.map((server) =>
      serverTools(server).then(
        (tools) => tools.map((t) => ({ server, t })),
        (error: unknown) => {
          console.warn(`MCP server ${server.name}: cannot list its tools: ${error instanceof Error ? error.message : error}`);
          return [];
        },
      ),
    ),
  );
  const byName = new Map<string, McpTool>();
  for (const { server, t } of listed.flat()) {
    const name = exposedName(server.name, t.name);
    if (byName.has(name) || Object.hasOwn(toolInputs, name)) continue;
    const external = t.annotations?.readOnlyHint !== true;
    byName.set(name, { name, description: t.description ?? t.title ?? t.name, inputSchema: t.inputSchema, server, tool: t.name, external });
  }
  return [...byName.values()];
}

/** The tools a turn of an agent may call, listed once per turn (the connections keep the lists). */
export function toolbox(servers: McpServerConfig[]) {
  let listing: Promise<McpTool[]> | undefined;
  const tools = () => {
    listing ??= mcpTools(servers);
    return listing;
  };
  return {
    async specs(): Promise<ToolSpec[]> {
      return [...builtinSpecs, ...(await tools()).map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))];
    },
    /**
     * The approval gate: the configured approval, where "ask" becomes "always" for a tool the chat's state allows
     * (`state`: the chat's own state as the turn began or resumed; only a decision changes that list, and a
     * decision is taken before its turn runs). No I/O: the tools are listed once per turn.
     */
    async plan(name: string, state: State): Promise<Plan> {
      if (Object.hasOwn(toolInputs, name)) return { kind: "builtin" };
      const tool = (await tools()).find((t) => t.name === name);
      if (!tool) return { kind: "unknown" };
      const approval = tool.server.tools[tool.tool] ?? tool.server.approval;
      if (approval === "ask" && alwaysAllowed(state).includes(name)) return { kind: "mcp", tool, approval: "always" };
      return { kind: "mcp", tool, approval };
    },
  };
}

export type Toolbox = ReturnType<typeof toolbox>;

export const markOf = (plan: Extract<Plan, { kind: "mcp" }>, executed?: boolean): ToolMark => ({
  server: plan.tool.server.name,
  tool: plan.tool.tool,
  external: plan.tool.external,
  ...(executed === undefined ? {} : { executed }),
});

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Runs a call its plan allows. A tool server that fails, hangs past its timeout or dies ends the call as an
 * error response with its message; only this call pays for it.
 */
export async function execute(ctx: InvocationContext, plan: Plan, call: FunctionCall): Promise<Outcome> {
  if (plan.kind === "builtin") return executeTool(ctx, call.name, call.args);
  if (plan.kind === "unknown") return { response: { error: `Unknown tool: ${call.name}` } };
  if (plan.approval === "never") {
    return { response: { error: `${call.name} is not allowed: the operator refused it for this agent.` }, mark: markOf(plan, false) };
  }
  try {
    const result = await callTool(plan.tool.server, plan.tool.tool, call.args, { userId: ctx.userId, signal: ctx.signal });
    return { response: toResponse(result), mark: markOf(plan, true) };
  } catch (error) {
    const reached = !(error instanceof ToolServerUnreachable);
    return { response: { error: `The tool server ${plan.tool.server.name} failed: ${message(error)}` }, mark: markOf(plan, reached) };
  }
}
