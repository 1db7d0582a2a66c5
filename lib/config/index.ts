/**
 * Retrace's configuration, read from the environment (and AGENTS_FILE) and validated once: a bad
 * value stops start-up with a message that names it (docs/api.md, "Configuration").
 */
import { z } from "zod";
import { issuesText } from "@/lib/errors";
import { DEMO_AGENT } from "@/lib/session/names";
import type { Json } from "@/lib/session/types";
import { BUILTIN_TODOS, ConfigError, DEFAULT_INSTRUCTION, type ModelAgentConfig, PDF_INPUT, readAgentsFile } from "./agents-file";

export { type Approval, BUILTIN_TODOS, type McpServerConfig, type ModelAgentConfig } from "./agents-file";

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
  /** Tokens one user's turns may use per UTC day (unset: no budget). */
  RETRACE_MAX_TOKENS_PER_DAY: z.coerce.number().int().positive().optional(),
  RETRACE_MAX_UPLOAD_BYTES: count(100 * 1024 ** 2),
  RETRACE_MAX_ATTACHMENTS: count(10),
  /** How long an upload may wait to be attached to a message. */
  RETRACE_UPLOAD_TTL_HOURS: count(24),
  /** How long a running turn holds its chat past its last renewal: how fast a crashed instance's chats free themselves. */
  RETRACE_TURN_LEASE_MS: z.coerce.number().int().min(1000).max(30_000).default(20_000),
  OPENAI_BASE_URL: z.url().optional(),
  OPENAI_MODEL: z.string().min(1).default("gpt-4o-mini"),
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_PDF_INPUT: PDF_INPUT.default("file"),
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
  limits: {
    concurrentTurns: number;
    sessions: number;
    storedBytes: number;
    /** The largest upload (an attachment) and the most attachments one message may carry. */
    uploadBytes: number;
    attachments: number;
    /** How long an upload not yet sent with a message is kept. */
    uploadTtlMs: number;
    /** Tokens one user's turns may use per UTC day (unset: no budget). */
    tokensPerDay?: number;
  };
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
      models: [{ name: e.OPENAI_MODEL, model: e.OPENAI_MODEL, baseURL: e.OPENAI_BASE_URL, apiKey: e.OPENAI_API_KEY }],
      pdfInput: e.OPENAI_PDF_INPUT,
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
      tokensPerDay: e.RETRACE_MAX_TOKENS_PER_DAY,
      uploadBytes: e.RETRACE_MAX_UPLOAD_BYTES,
      attachments: e.RETRACE_MAX_ATTACHMENTS,
      uploadTtlMs: e.RETRACE_UPLOAD_TTL_HOURS * 3_600_000,
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

/** What the browser checks a file against before it uploads it (RETRACE_MAX_UPLOAD_BYTES, RETRACE_MAX_ATTACHMENTS). */
export function attachmentLimits() {
  const { uploadBytes, attachments } = config().limits;
  return { maxBytes: uploadBytes, maxFiles: attachments };
}

/** Where the embedded SQLite database lives (also where a generated auth secret is kept). */
export function databasePath(): string {
  const database = config().database;
  return database.kind === "sqlite" ? database.path : "data/retrace.db";
}
