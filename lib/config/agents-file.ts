/**
 * AGENTS_FILE (docs/api.md, "Configuration"): model agents, their models and prices, their MCP tool servers and
 * app-wide state, validated with the rest of the configuration: a bad entry stops start-up naming it.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { issuesText } from "@/lib/errors";
import { DEMO_AGENT } from "@/lib/session/names";
import { isAppKey } from "@/lib/session/state";
import type { Price } from "@/lib/session/usage";

/** One model of a model agent: the name clients pick it by, the provider's model id, its endpoint, key and price. */
interface ModelConfig {
  name: string;
  model: string;
  baseURL: string;
  apiKey?: string;
  price?: Price;
}

/** An OpenAI-compatible chat model agent, from the environment or AGENTS_FILE; its first model is the default. */
export interface ModelAgentConfig {
  name: string;
  description: string;
  instruction: string;
  models: ModelConfig[];
  /** How PDFs reach the model: as file parts (the endpoint reads PDFs; the default) or as their extracted text. */
  pdfInput?: PdfInput;
  /** Its MCP tool servers (docs/api.md, "Configuration"). */
  mcp: McpServerConfig[];
}

export const PDF_INPUT = z.enum(["file", "text"], "must be file or text");
type PdfInput = z.infer<typeof PDF_INPUT>;

/** Whether a tool's call runs at once (`always`), waits for the user's decision (`ask`) or is refused (`never`). */
export type Approval = "always" | "ask" | "never";

/** An MCP tool server of an agent: streamable HTTP, a stdio command, or the built-in todo list. */
export interface McpServerConfig {
  name: string;
  transport:
    | { kind: "http"; url: string; headers: Record<string, string> }
    | { kind: "stdio"; command: string; args: string[]; env: Record<string, string> }
    | { kind: "builtin" };
  /** The approval of its tools, unless `tools` names one. */
  approval: Approval;
  tools: Record<string, Approval>;
  /** How long connecting, listing tools or one call may take before it ends as a tool error. */
  timeoutMs: number;
}

/** The built-in todo list (lib/agent/mcp/todo-server.ts): the demo agent's, and the `assistant`'s. Listing needs no approval. */
export const BUILTIN_TODOS: McpServerConfig = {
  name: "todos",
  transport: { kind: "builtin" },
  approval: "ask",
  tools: { list_todos: "always" },
  timeoutMs: 30_000,
};

export const DEFAULT_INSTRUCTION =
  "You are a helpful assistant in Retrace, a chat app. You can keep session state with update_state/load_state " +
  "and files with save_artifact/load_artifact. Use the tools when the user asks you to remember, recall, save or open something, " +
  "and the other tools you are given when the user asks for what they do.";

const agentName = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, "agent names are lowercase letters, digits, - and _");
const appState = z
  .record(
    z.string(),
    z.json().refine((v) => v !== null, "app_state values cannot be null"),
  )
  .superRefine((state, ctx) => {
    for (const key of Object.keys(state)) {
      if (!isAppKey(key)) ctx.addIssue({ code: "custom", path: [key], message: "app_state keys start with app:" });
    }
  });
const approval = z.enum(["always", "ask", "never"], "approval is always, ask or never");
const serverFields = {
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,29}$/, "MCP server names are lowercase letters, digits, - and _ (max 30)"),
  approval: approval.default("ask"),
  tools: z.record(z.string().min(1), z.strictObject({ approval })).default({}),
  timeout_ms: z.number().int().min(100).max(600_000).default(30_000),
};
/** An MCP server: exactly one of `url` (with `headers`), `command` (with `args`, `env`) or `builtin`. */
const mcpServer = z
  .strictObject({
    ...serverFields,
    url: z.url().optional(),
    headers: z.record(z.string(), z.string()).optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    builtin: z.literal("todos").optional(),
  })
  .superRefine((server, ctx) => {
    const kinds = [server.url, server.command, server.builtin].filter((v) => v !== undefined).length;
    if (kinds !== 1) ctx.addIssue({ code: "custom", message: "an MCP server has exactly one of url, command or builtin" });
    if (server.headers && server.url === undefined) ctx.addIssue({ code: "custom", path: ["headers"], message: "headers go with url" });
    if ((server.args || server.env) && server.command === undefined) {
      ctx.addIssue({ code: "custom", path: [server.args ? "args" : "env"], message: "args and env go with command" });
    }
  });
/** Dollars (or another currency) per million tokens: prompt tokens at the input price, the reply's at the output price. */
const price = z.strictObject({
  input_per_million: z.number().nonnegative(),
  output_per_million: z.number().nonnegative(),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, "currency is a three-letter code such as USD")
    .default("USD"),
});
/** What a client sends as `retrace_model`: no blank ends, at most 100 characters. */
const modelName = z.string().regex(/^\S(.{0,98}\S)?$/, "model names are 1 to 100 characters without blanks at either end");
const modelEntry = z.strictObject({
  name: modelName,
  model: z.string().min(1),
  base_url: z.url().optional(),
  api_key_env: z.string().optional(),
  price: price.optional(),
});
const modelAgentEntry = z
  .strictObject({
    name: agentName.refine((n) => n !== DEMO_AGENT, "the demo agent is built in"),
    description: z.string().default("An OpenAI-compatible model"),
    instruction: z.string().default(DEFAULT_INSTRUCTION),
    // One model: `model` at `base_url`. Several: `models`, each with its own endpoint and key or these.
    base_url: z.url().optional(),
    model: modelName.optional(),
    api_key_env: z.string().optional(),
    price: price.optional(),
    models: z.array(modelEntry).min(1, "models lists at least one model").optional(),
    pdf_input: PDF_INPUT.default("file"),
    mcp: z
      .array(mcpServer)
      .default([])
      .refine((servers) => new Set(servers.map((s) => s.name)).size === servers.length, "two MCP servers of an agent share a name"),
  })
  .superRefine((agent, ctx) => {
    if (Boolean(agent.model) === Boolean(agent.models)) ctx.addIssue({ code: "custom", message: "give either model or models" });
    if (agent.models && agent.price)
      ctx.addIssue({ code: "custom", path: ["price"], message: "with models, each model has its own price" });
    const names = new Set<string>();
    for (const [i, m] of (agent.models ?? []).entries()) {
      if (names.has(m.name)) ctx.addIssue({ code: "custom", path: ["models", i, "name"], message: `two models are named ${m.name}` });
      names.add(m.name);
      if (!m.base_url && !agent.base_url) {
        ctx.addIssue({
          code: "custom",
          path: ["models", i, "base_url"],
          message: `model ${m.name} needs a base_url (its own or the agent's)`,
        });
      }
    }
    if (agent.model && !agent.base_url) ctx.addIssue({ code: "custom", path: ["base_url"], message: "base_url is required" });
  });
/** AGENTS_FILE: a list of model agents, or `{agents, app_state}` with app-wide state per agent. */
const agentsList = z.array(modelAgentEntry);
const agentsObject = z.strictObject({ agents: agentsList.default([]), app_state: z.record(agentName, appState).default({}) });

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** `${NAME}` in a header or environment value, replaced by that variable; an unset one stops start-up. */
function interpolate(values: Record<string, string>, env: NodeJS.ProcessEnv, where: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).map(([key, value]) => [
      key,
      value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
        const found = env[name];
        if (!found) throw new ConfigError(`${where}.${key}: environment variable ${name} is not set`);
        return found;
      }),
    ]),
  );
}

function mcpConfig(server: z.infer<typeof mcpServer>, env: NodeJS.ProcessEnv, where: string): McpServerConfig {
  const common = {
    name: server.name,
    approval: server.approval,
    tools: Object.fromEntries(Object.entries(server.tools).map(([tool, t]) => [tool, t.approval])),
    timeoutMs: server.timeout_ms,
  };
  if (server.url !== undefined) {
    return { ...common, transport: { kind: "http", url: server.url, headers: interpolate(server.headers ?? {}, env, `${where}.headers`) } };
  }
  if (server.command !== undefined) {
    const processEnv = interpolate(server.env ?? {}, env, `${where}.env`);
    return { ...common, transport: { kind: "stdio", command: server.command, args: server.args ?? [], env: processEnv } };
  }
  return { ...common, transport: { kind: "builtin" } };
}

/** Reads and checks AGENTS_FILE; `${VAR}` in its values comes from `env`. */
export function readAgentsFile(file: string, env: NodeJS.ProcessEnv) {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ConfigError(`AGENTS_FILE ${file}: ${(error as Error).message}`);
  }
  const parsed = Array.isArray(raw)
    ? agentsList.transform((agents) => ({ agents, app_state: {} })).safeParse(raw)
    : agentsObject.safeParse(raw);
  if (!parsed.success) throw new ConfigError(`AGENTS_FILE ${file}: ${issuesText(parsed.error)}`);
  const { agents, app_state } = parsed.data;
  const key = (name?: string) => (name ? env[name] : undefined);
  const agentsConfig = agents.map(
    (a, i): ModelAgentConfig => ({
      name: a.name,
      description: a.description,
      instruction: a.instruction,
      // Checked above: a single `model` comes with its `base_url`, and each of `models` has one of its own or the agent's.
      models: (a.models ?? [{ name: a.model as string, model: a.model as string, price: a.price }]).map((m) => ({
        name: m.name,
        model: m.model,
        baseURL: (m.base_url ?? a.base_url) as string,
        apiKey: key(m.api_key_env ?? a.api_key_env),
        ...(m.price ? { price: m.price } : {}),
      })),
      pdfInput: a.pdf_input,
      mcp: a.mcp.map((server, j) => mcpConfig(server, env, `AGENTS_FILE ${file}: ${i}.mcp.${j}`)),
    }),
  );
  return { agents: agentsConfig, appState: app_state };
}
