import { readFileSync } from "node:fs";
import { z } from "zod";

/** An OpenAI-compatible chat model agent, from the environment or AGENTS_FILE. */
export interface ModelAgentConfig {
  name: string;
  description: string;
  instruction: string;
  baseURL: string;
  model: string;
  apiKey?: string;
}

const DEFAULT_INSTRUCTION =
  "You are a helpful assistant in Retrace, a chat app. You can keep session state with update_state/load_state " +
  "and files with save_artifact/load_artifact. Use the tools when the user asks you to remember, recall, save or open something.";

const fileSchema = z.array(
  z.strictObject({
    name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, "agent names are lowercase letters, digits, - and _"),
    description: z.string().default("An OpenAI-compatible model"),
    instruction: z.string().default(DEFAULT_INSTRUCTION),
    base_url: z.url(),
    model: z.string().min(1),
    api_key_env: z.string().optional(),
  }),
);

/** `assistant` when OPENAI_BASE_URL is set, plus every agent of AGENTS_FILE. */
export function modelAgentConfigs(env: NodeJS.ProcessEnv = process.env): ModelAgentConfig[] {
  const configs: ModelAgentConfig[] = [];
  if (env.OPENAI_BASE_URL) {
    configs.push({
      name: "assistant",
      description: `Chat model ${env.OPENAI_MODEL || "gpt-4o-mini"} at an OpenAI-compatible endpoint`,
      instruction: DEFAULT_INSTRUCTION,
      baseURL: env.OPENAI_BASE_URL,
      model: env.OPENAI_MODEL || "gpt-4o-mini",
      apiKey: env.OPENAI_API_KEY,
    });
  }
  if (env.AGENTS_FILE) {
    const parsed = fileSchema.safeParse(JSON.parse(readFileSync(env.AGENTS_FILE, "utf8")));
    if (!parsed.success) throw new Error(`AGENTS_FILE ${env.AGENTS_FILE}: ${z.prettifyError(parsed.error)}`);
    for (const a of parsed.data) {
      configs.push({
        name: a.name,
        description: a.description,
        instruction: a.instruction,
        baseURL: a.base_url,
        model: a.model,
        apiKey: a.api_key_env ? env[a.api_key_env] : undefined,
      });
    }
  }
  return configs.filter((c) => c.name !== "demo");
}
