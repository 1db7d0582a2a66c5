import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/config";

let dir = "";
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = "";
});

const env = (values: Record<string, string>) => values as unknown as NodeJS.ProcessEnv;
function agentsFile(content: unknown) {
  dir = mkdtempSync(path.join(tmpdir(), "retrace-config-"));
  const file = path.join(dir, "agents.json");
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

describe("configuration, validated at start-up", () => {
  it("AGENTS_FILE mcp: HTTP servers with headers from the environment, stdio commands, the built-in todo list; approvals default to ask", () => {
    const agent = {
      name: "local",
      base_url: "http://localhost:11434/v1",
      model: "llama3.1",
      mcp: [
        {
          name: "github",
          url: "https://mcp.example.com/mcp",
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the agents file's own ${VAR} syntax
          headers: { Authorization: "Bearer ${MCP_TOKEN}" },
          tools: { delete_repo: { approval: "never" } },
        },
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the agents file's own ${VAR} syntax
        { name: "files", command: "node", args: ["server.mjs"], env: { ROOT: "${HOME_DIR}/notes" }, approval: "always", timeout_ms: 5000 },
        { name: "todos", builtin: "todos" },
      ],
    };
    const [parsed] = parseConfig(env({ AGENTS_FILE: agentsFile([agent]), MCP_TOKEN: "t0k", HOME_DIR: "/srv" })).modelAgents;
    expect(parsed.mcp).toEqual([
      {
        name: "github",
        transport: { kind: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer t0k" } },
        approval: "ask",
        tools: { delete_repo: "never" },
        timeoutMs: 30_000,
      },
      {
        name: "files",
        transport: { kind: "stdio", command: "node", args: ["server.mjs"], env: { ROOT: "/srv/notes" } },
        approval: "always",
        tools: {},
        timeoutMs: 5000,
      },
      { name: "todos", transport: { kind: "builtin" }, approval: "ask", tools: {}, timeoutMs: 30_000 },
    ]);
    const bad = (mcp: unknown[]) => () => parseConfig(env({ AGENTS_FILE: agentsFile([{ ...agent, mcp }]) }));
    expect(bad([agent.mcp[0]])).toThrow(/0\.mcp\.0\.headers\.Authorization: environment variable MCP_TOKEN is not set/);
    expect(bad([{ name: "x", url: "https://a.example", approval: "sometimes" }])).toThrow(/approval is always, ask or never/);
    expect(bad([{ name: "Bad Name", command: "node" }])).toThrow(/MCP server names are lowercase/);
    expect(
      bad([
        { name: "x", command: "node" },
        { name: "x", builtin: "todos" },
      ]),
    ).toThrow(/two MCP servers of an agent share a name/);
    expect(bad([{ name: "x", command: "node", url: "https://a.example" }])).toThrow(/exactly one of url, command or builtin/);
    expect(bad([{ name: "x", command: "node", headers: {} }])).toThrow(/headers go with url/);
  });

  it("defaults to the embedded SQLite file and the documented limits; an empty variable is unset", () => {
    const config = parseConfig(env({ DATABASE_URL: "", PORT: "" }));
    expect(config.database).toEqual({ kind: "sqlite", path: "data/retrace.db" });
    expect(config.limits).toEqual({
      concurrentTurns: 3,
      sessions: 10_000,
      storedBytes: 1024 ** 3,
      uploadBytes: 100 * 1024 ** 2,
      attachments: 10,
      uploadTtlMs: 24 * 3_600_000,
    });
    expect(config.kagentNamespace).toBe("kagent");
    expect(parseConfig(env({ RETRACE_KAGENT_NAMESPACE: "team-a" })).kagentNamespace).toBe("team-a");
  });

  it("DATABASE_URL selects PostgreSQL (with a shared AUTH_SECRET) and its pool size", () => {
    const config = parseConfig(env({ DATABASE_URL: "postgres://u@db:5432/retrace", AUTH_SECRET: "s".repeat(32), DATABASE_POOL_SIZE: "4" }));
    expect(config.database).toEqual({ kind: "postgres", url: "postgres://u@db:5432/retrace", poolSize: 4 });
    expect(() => parseConfig(env({ DATABASE_URL: "postgres://u@db/retrace" }))).toThrow(/AUTH_SECRET must be set when DATABASE_URL is/);
  });

  it.each([
    [{ DATABASE_URL: "mysql://x" }, /^Invalid configuration: DATABASE_URL must be a postgres:\/\/ URL$/],
    [{ PORT: "70000" }, /PORT:/],
    [{ RETRACE_ADMIN_TOKEN: "short" }, /^Invalid configuration: RETRACE_ADMIN_TOKEN must be at least 16 characters$/],
    [{ RETRACE_KAGENT_NAMESPACE: "Team_A" }, /RETRACE_KAGENT_NAMESPACE must be a Kubernetes namespace name/],
    [{ RETRACE_KAGENT_NAMESPACE: "-team" }, /RETRACE_KAGENT_NAMESPACE must be a Kubernetes namespace name/],
    [{ RETRACE_MAX_SESSIONS: "-1" }, /RETRACE_MAX_SESSIONS:/],
    [{ OPENAI_BASE_URL: "not a url" }, /OPENAI_BASE_URL:/],
  ])("names a bad value: %o", (values, message) => {
    expect(() => parseConfig(env(values))).toThrow(message);
  });

  it("AGENTS_FILE: a list of model agents, or {agents, app_state}; errors name the file and the field", () => {
    const agent = { name: "local", base_url: "http://localhost:11434/v1", model: "llama3.1", api_key_env: "KEY" };
    expect(parseConfig(env({ AGENTS_FILE: agentsFile([agent]), KEY: "k" })).modelAgents).toEqual([
      expect.objectContaining({ name: "local", models: [{ name: "llama3.1", baseURL: agent.base_url, model: "llama3.1", apiKey: "k" }] }),
    ]);
    const both = parseConfig(env({ AGENTS_FILE: agentsFile({ agents: [agent], app_state: { demo: { "app:motd": "hi" } } }) }));
    expect(both.appState).toEqual({ demo: { "app:motd": "hi" } });
    for (const [content, message] of [
      ["{not json", /AGENTS_FILE .*agents\.json: .*JSON/],
      [[{ ...agent, base_url: "nope" }], /0\.base_url/],
      [[{ ...agent, name: "Bad Name" }], /0\.name: agent names are lowercase/],
      [[{ ...agent, name: "demo" }], /the demo agent is built in/],
      [{ app_state: { demo: { motd: "no prefix" } } }, /app_state keys start with app:/],
      [{ app_state: { nobody: { "app:x": 1 } } }, /unknown agent nobody/],
      [[agent, agent], /two agents share a name/],
    ] as const) {
      expect(() => parseConfig(env({ AGENTS_FILE: agentsFile(content) }))).toThrow(message);
    }
  });

  it("AGENTS_FILE: an agent lists several models, each with its own endpoint, key and price or the agent's; the first is the default", () => {
    const file = agentsFile([
      {
        name: "team",
        base_url: "http://llm.internal/v1",
        api_key_env: "TEAM_KEY",
        models: [
          { name: "fast", model: "gpt-4o-mini", price: { input_per_million: 0.15, output_per_million: 0.6 } },
          { name: "local", model: "llama3.1", base_url: "http://localhost:11434/v1", api_key_env: "OLLAMA_KEY" },
          { name: "eu", model: "mistral-small", price: { input_per_million: 0.2, output_per_million: 0.6, currency: "EUR" } },
        ],
      },
      { name: "solo", base_url: "http://x.internal/v1", model: "qwen2.5:7b", price: { input_per_million: 1, output_per_million: 2 } },
    ]);
    const [team, solo] = parseConfig(env({ AGENTS_FILE: file, TEAM_KEY: "t", OLLAMA_KEY: "o" })).modelAgents;
    expect(team.models).toEqual([
      {
        name: "fast",
        model: "gpt-4o-mini",
        baseURL: "http://llm.internal/v1",
        apiKey: "t",
        price: { input_per_million: 0.15, output_per_million: 0.6, currency: "USD" },
      },
      { name: "local", model: "llama3.1", baseURL: "http://localhost:11434/v1", apiKey: "o" },
      {
        name: "eu",
        model: "mistral-small",
        baseURL: "http://llm.internal/v1",
        apiKey: "t",
        price: { input_per_million: 0.2, output_per_million: 0.6, currency: "EUR" },
      },
    ]);
    expect(solo.models).toEqual([
      {
        name: "qwen2.5:7b",
        model: "qwen2.5:7b",
        baseURL: "http://x.internal/v1",
        price: { input_per_million: 1, output_per_million: 2, currency: "USD" },
      },
    ]);
    const base = { name: "a", base_url: "http://x/v1" };
    const two = [
      { name: "m", model: "x" },
      { name: "m", model: "y" },
    ];
    for (const [agent, message] of [
      [{ ...base }, /0: give either model or models/],
      [{ ...base, model: "x", models: [{ name: "m", model: "x" }] }, /0: give either model or models/],
      [{ ...base, models: two }, /two models are named m/],
      [{ name: "a", models: [{ name: "m", model: "x" }] }, /model m needs a base_url/],
      [{ name: "a", model: "x" }, /base_url is required/],
      [{ ...base, models: [] }, /models lists at least one model/],
      [{ ...base, models: [{ name: " m", model: "x" }] }, /model names are 1 to 100 characters/],
      [{ ...base, model: "x", price: { input_per_million: -1, output_per_million: 1 } }, /0\.price\.input_per_million/],
      [{ ...base, model: "x", price: { input_per_million: 1, output_per_million: 1, currency: "usd" } }, /currency is a three-letter code/],
      [
        { ...base, models: [{ name: "m", model: "x" }], price: { input_per_million: 1, output_per_million: 1 } },
        /each model has its own price/,
      ],
      [{ ...base, models: [{ name: "m", model: "x", temperature: 1 }] }, /temperature/],
    ] as const) {
      expect(() => parseConfig(env({ AGENTS_FILE: agentsFile([agent]) })), JSON.stringify(agent)).toThrow(message);
    }
  });

  it("PDFs reach a model as file parts unless pdf_input (AGENTS_FILE) or OPENAI_PDF_INPUT says text", () => {
    const agent = { name: "pdfs", base_url: "http://localhost:1/v1", model: "m" };
    const [byDefault, asText] = parseConfig(
      env({ AGENTS_FILE: agentsFile([agent, { ...agent, name: "texts", pdf_input: "text" }]) }),
    ).modelAgents;
    expect([byDefault.pdfInput, asText.pdfInput]).toEqual(["file", "text"]);
    const assistant = (value?: string) =>
      parseConfig(env({ OPENAI_BASE_URL: "http://localhost:1/v1", ...(value ? { OPENAI_PDF_INPUT: value } : {}) })).modelAgents[0].pdfInput;
    expect([assistant(), assistant("text")]).toEqual(["file", "text"]);
    expect(() => assistant("images")).toThrow(/OPENAI_PDF_INPUT/);
    expect(() => parseConfig(env({ AGENTS_FILE: agentsFile([{ ...agent, pdf_input: "pages" }]) }))).toThrow(/pdf_input/);
  });

  it("RETRACE_MAX_TOKENS_PER_DAY: a positive whole number of tokens; unset is no budget", () => {
    expect(parseConfig(env({})).limits.tokensPerDay).toBeUndefined();
    expect(parseConfig(env({ RETRACE_MAX_TOKENS_PER_DAY: "50000" })).limits.tokensPerDay).toBe(50_000);
    for (const value of ["0", "-5", "1.5", "lots"]) {
      expect(() => parseConfig(env({ RETRACE_MAX_TOKENS_PER_DAY: value }))).toThrow(/RETRACE_MAX_TOKENS_PER_DAY/);
    }
  });

  it("RETRACE_TRUSTED_PROXIES: addresses and CIDR ranges, by commas or spaces; unset trusts no forwarding header", () => {
    expect(parseConfig(env({})).accounts.trustedProxies).toEqual([]);
    expect(parseConfig(env({ RETRACE_TRUSTED_PROXIES: "10.0.0.0/8, 192.0.2.1  ::1,fd00::/8" })).accounts.trustedProxies).toEqual([
      "10.0.0.0/8",
      "192.0.2.1",
      "::1",
      "fd00::/8",
    ]);
    for (const value of ["localhost", "10.0.0.0/33", "192.0.2"]) {
      expect(() => parseConfig(env({ RETRACE_TRUSTED_PROXIES: value }))).toThrow(
        /RETRACE_TRUSTED_PROXIES\.0: each entry must be an IP address or a CIDR range/,
      );
    }
  });
});
