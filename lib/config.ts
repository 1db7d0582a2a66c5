/**
 * Retrace's configuration, read from the environment (and AGENTS_FILE) and validated once: a bad
 * value stops start-up with a message that names it (docs/api.md, "Configuration").
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { issuesText } from "@/lib/errors";
import { DEMO_AGENT } from "@/lib/session/names";
import { isAppKey } from "@/lib/session/state";
import type { Json } from "@/lib/session/types";

/** An OpenAI-compatible chat model agent, from the environment or AGENTS_FILE. */
export interface ModelAgentConfig {
  name: string;
  description: string;
  instruction: string;
  baseURL: string;
  model: string;
  apiKey?: string;
  /** Its MCP tool servers (docs/api.md, "Configuration"). */
  mcp: McpServerConfig[];
}

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

const DEFAULT_INSTRUCTION =
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
const modelAgentEntry = z.strictObject({
  name: agentName.refine((n) => n !== DEMO_AGENT, "the demo agent is built in"),
  description: z.string().default("An OpenAI-compatible model"),
  instruction: z.string().default(DEFAULT_INSTRUCTION),
  base_url: z.url(),
  model: z.string().min(1),
  api_key_env: z.string().optional(),
  mcp: z
    .array(mcpServer)
    .default([])
    .refine((servers) => new Set(servers.map((s) => s.name)).size === servers.length, "two MCP servers of an agent share a name"),
});
/** AGENTS_FILE: a list of model agents, or `{agents, app_state}` with app-wide state per agent. */
const agentsList = z.array(modelAgentEntry);
const agentsObject = z.strictObject({ agents: agentsList.default([]), app_state: z.record(agentName, appState).default({}) });

/** Headers a client or the app itself controls: never an identity a proxy vouches for. */
const RESERVED_HEADERS = new Set(["authorization", "cookie", "host", "origin", "content-type", "x-forwarded-for", "x-forwarded-host"]);

/** RETRACE_TRUSTED_PROXIES: addresses or CIDR ranges, separated by commas or spaces. */
const proxyAddress = z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()], "each entry must be an IP address or a CIDR range");
const trustedProxies = z
  .string()
  .transform((value) => value.split(/[\s,]+/).filter(Boolean))
  .pipe(z.array(proxyAddress));

const count = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const envSchema = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/\S+$/, "DATABASE_URL must be a postgres:// URL")
    .optional(),
  DATABASE_PATH: z.string().min(1).default("data/retrace.db"),
  DATABASE_POOL_SIZE: count(10),
  PORT: z.coerce.number().int().min(1).max(65535).optional(),
  AUTH_SECRET: z.string().min(16, "AUTH_SECRET must be at least 16 characters").optional(),
  RETRACE_ADMIN_TOKEN: z.string().min(16, "RETRACE_ADMIN_TOKEN must be at least 16 characters").optional(),
  RETRACE_MAX_CONCURRENT_TURNS: count(3),
  RETRACE_MAX_SESSIONS: count(10_000),
  RETRACE_MAX_STORED_BYTES: count(1024 ** 3),
  /** How long a running turn holds its chat past its last renewal: how fast a crashed instance's chats free themselves. */
  RETRACE_TURN_LEASE_MS: z.coerce.number().int().min(1000).max(30_000).default(20_000),
  OPENAI_BASE_URL: z.url().optional(),
  OPENAI_MODEL: z.string().min(1).default("gpt-4o-mini"),
  OPENAI_API_KEY: z.string().optional(),
  AGENTS_FILE: z.string().min(1).optional(),
  RETRACE_SIGNUP: z.enum(["open", "invite", "closed"], "RETRACE_SIGNUP must be open, invite or closed").default("open"),
  RETRACE_OIDC_ISSUER: z.url("RETRACE_OIDC_ISSUER must be the IdP's issuer URL").optional(),
  RETRACE_OIDC_CLIENT_ID: z.string().optional(),
  RETRACE_OIDC_CLIENT_SECRET: z.string().optional(),
  RETRACE_OIDC_NAME: z.string().max(60).default("Single sign-on"),
  RETRACE_TRUSTED_USER_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,100}$/, "RETRACE_TRUSTED_USER_HEADER must be a header name")
    .refine((name) => !RESERVED_HEADERS.has(name.toLowerCase()), "RETRACE_TRUSTED_USER_HEADER cannot be a header browsers or the app set")
    .optional(),
  RETRACE_TRUSTED_PROXIES: trustedProxies.optional(),
  /** The namespace kagent's UI puts before an agent's name (`kagent/demo`): Retrace's agents live in this one. */
  RETRACE_KAGENT_NAMESPACE: z
    .string()
    .regex(
      /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/,
      "RETRACE_KAGENT_NAMESPACE must be a Kubernetes namespace name (a-z, 0-9 and -, at most 63)",
    )
    .default("kagent"),
});

export interface Config {
  database: { kind: "sqlite"; path: string } | { kind: "postgres"; url: string; poolSize: number };
  authSecret?: string;
  adminToken?: string;
  limits: { concurrentTurns: number; sessions: number; storedBytes: number };
  turnLeaseMs: number;
  modelAgents: ModelAgentConfig[];
  /** `app:` state per agent, applied at start-up. */
  appState: Record<string, Record<string, Json>>;
  accounts: {
    signup: "open" | "invite" | "closed";
    oidc?: { issuer: string; clientId: string; clientSecret: string; name: string };
    /** Set only when the operator opted in: the header a trusted proxy names the signed-in user by. */
    trustedUserHeader?: string;
    /** Proxies whose X-Forwarded-For names the client that rate limits count (none: the connection's own address). */
    trustedProxies: string[];
  };
  /** The namespace of kagent's agent references and A2A paths (docs/api.md, "kagent's UI"). */
  kagentNamespace: string;
}

class ConfigError extends Error {
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

function readAgentsFile(file: string, env: NodeJS.ProcessEnv) {
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
  const agentsConfig = agents.map((a, i) => ({
    name: a.name,
    description: a.description,
    instruction: a.instruction,
    baseURL: a.base_url,
    model: a.model,
    apiKey: a.api_key_env ? env[a.api_key_env] : undefined,
    mcp: a.mcp.map((server, j) => mcpConfig(server, env, `AGENTS_FILE ${file}: ${i}.mcp.${j}`)),
  }));
  return { agents: agentsConfig, appState: app_state };
}

/** Parses a whole environment; throws a ConfigError naming every bad value. */
export function parseConfig(env: NodeJS.ProcessEnv): Config {
  // An empty variable means unset, as in most deployment tools.
  const parsed = envSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, value]) => value !== "")));
  if (!parsed.success) throw new ConfigError(`Invalid configuration: ${issuesText(parsed.error)}`);
  const e = parsed.data;
  if (e.DATABASE_URL && !e.AUTH_SECRET) {
    throw new ConfigError("AUTH_SECRET must be set when DATABASE_URL is: every app instance signs and checks tokens with it");
  }
  const modelAgents: ModelAgentConfig[] = [];
  if (e.OPENAI_BASE_URL) {
    modelAgents.push({
      name: "assistant",
      description: `Chat model ${e.OPENAI_MODEL} at an OpenAI-compatible endpoint`,
      instruction: DEFAULT_INSTRUCTION,
      baseURL: e.OPENAI_BASE_URL,
      model: e.OPENAI_MODEL,
      apiKey: e.OPENAI_API_KEY,
      mcp: [BUILTIN_TODOS],
    });
  }
  const file = e.AGENTS_FILE ? readAgentsFile(e.AGENTS_FILE, env) : { agents: [], appState: {} };
  modelAgents.push(...file.agents);
  const names = new Set([DEMO_AGENT, ...modelAgents.map((a) => a.name)]);
  if (names.size !== modelAgents.length + 1) throw new ConfigError("AGENTS_FILE: two agents share a name");
  const unknown = Object.keys(file.appState).filter((agent) => !names.has(agent));
  if (unknown.length) throw new ConfigError(`AGENTS_FILE app_state: unknown agent ${unknown.join(", ")}`);
  const oidc = [e.RETRACE_OIDC_ISSUER, e.RETRACE_OIDC_CLIENT_ID, e.RETRACE_OIDC_CLIENT_SECRET];
  if (oidc.some(Boolean) && !oidc.every(Boolean)) {
    throw new ConfigError("RETRACE_OIDC_ISSUER, RETRACE_OIDC_CLIENT_ID and RETRACE_OIDC_CLIENT_SECRET are set together or not at all");
  }
  return {
    database: e.DATABASE_URL
      ? { kind: "postgres", url: e.DATABASE_URL, poolSize: e.DATABASE_POOL_SIZE }
      : { kind: "sqlite", path: e.DATABASE_PATH },
    authSecret: e.AUTH_SECRET,
    adminToken: e.RETRACE_ADMIN_TOKEN,
    limits: {
      concurrentTurns: e.RETRACE_MAX_CONCURRENT_TURNS,
      sessions: e.RETRACE_MAX_SESSIONS,
      storedBytes: e.RETRACE_MAX_STORED_BYTES,
    },
    turnLeaseMs: e.RETRACE_TURN_LEASE_MS,
    modelAgents,
    appState: file.appState,
    accounts: {
      signup: e.RETRACE_SIGNUP,
      oidc: e.RETRACE_OIDC_ISSUER
        ? {
            issuer: e.RETRACE_OIDC_ISSUER,
            clientId: e.RETRACE_OIDC_CLIENT_ID ?? "",
            clientSecret: e.RETRACE_OIDC_CLIENT_SECRET ?? "",
            name: e.RETRACE_OIDC_NAME,
          }
        : undefined,
      trustedUserHeader: e.RETRACE_TRUSTED_USER_HEADER?.toLowerCase(),
      trustedProxies: e.RETRACE_TRUSTED_PROXIES ?? [],
    },
    kagentNamespace: e.RETRACE_KAGENT_NAMESPACE,
  };
}

const CONFIG_KEYS = [...Object.keys(envSchema.shape)];
const perProcess = globalThis as typeof globalThis & { __retraceConfig?: { key: string; config: Config } };

/** The process's configuration, parsed once (and again only if the environment changed, as tests do). */
export function config(): Config {
  const key = CONFIG_KEYS.map((k) => process.env[k] ?? "").join("\u0000");
  if (perProcess.__retraceConfig?.key !== key) perProcess.__retraceConfig = { key, config: parseConfig(process.env) };
  return perProcess.__retraceConfig.config;
}

/** Where the embedded SQLite database lives (also where a generated auth secret is kept). */
export function databasePath(): string {
  const database = config().database;
  return database.kind === "sqlite" ? database.path : "data/retrace.db";
}
