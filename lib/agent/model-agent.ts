import "server-only";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { APICallError, jsonSchema, streamText, type ToolSet, tool } from "ai";
import type { ModelAgentConfig } from "@/lib/config";
import type { AdkEvent, Json, Part } from "@/lib/session/types";
import type { UsageMetadata } from "@/lib/session/usage";
import { modelFiles } from "./attachments";
import { toModelMessages } from "./model-messages";
import type { Agent, AgentOutput, CallResponses, ToolSpec } from "./types";

/** Tool calls in one turn before the agent gives up, so a looping model cannot run forever. */
const MAX_STEPS = 8;

// No `execute`: the runtime runs each call, behind the approval gate, so calls and results become ADK events.
const toolSet = (specs: ToolSpec[]): ToolSet =>
  Object.fromEntries(specs.map((spec) => [spec.name, tool({ description: spec.description, inputSchema: jsonSchema(spec.inputSchema) })]));

function describeFailure(error: unknown): string {
  if (APICallError.isInstance(error)) {
    const status = error.statusCode ? ` (HTTP ${error.statusCode})` : "";
    return `The model endpoint failed${status}: ${error.message}`;
  }
  return `The model endpoint failed: ${error instanceof Error ? error.message : String(error)}`;
}

/** A step's usage as ADK reports it; none when the provider reported none. */
function stepUsage(usage: { inputTokens?: number; outputTokens?: number; totalTokens?: number }): UsageMetadata | undefined {
  if (usage.inputTokens === undefined && usage.outputTokens === undefined && usage.totalTokens === undefined) return undefined;
  const prompt = usage.inputTokens ?? 0;
  const candidates = usage.outputTokens ?? 0;
  return { prompt_token_count: prompt, candidates_token_count: candidates, total_token_count: usage.totalTokens ?? prompt + candidates };
}

/** OpenAI-compatible chat models behind the same invocation/event pipeline as the demo agent; each turn runs on the model it names. */
export function modelAgent(config: ModelAgentConfig): Agent {
  // `includeUsage` asks for the stream's final usage chunk (OpenAI's `stream_options.include_usage`).
  const models = new Map(
    config.models.map((m) => [
      m.name,
      createOpenAICompatible({ name: config.name, baseURL: m.baseURL, apiKey: m.apiKey, includeUsage: true }).chatModel(m.model),
    ]),
  );
  return {
    name: config.name,
    description: config.description,
    models: config.models.map(({ name, price }) => ({ name, ...(price ? { price } : {}) })),
    mcp: config.mcp,
    async *run(ctx): AsyncGenerator<AgentOutput, void, CallResponses | undefined> {
      const model = models.get(ctx.model);
      if (!model) throw new Error(`${config.name} has no model ${ctx.model}`);
      // Events of this turn so far, so each step's request includes its own tool calls and results.
      const turn: AdkEvent[] = [];
      const asEvent = (parts: Part[]): AdkEvent => ({
        id: "",
        invocation_id: ctx.invocationId,
        author: config.name,
        timestamp: 0,
        content: { role: "model", parts },
      });
      const history = await ctx.history();
      const files = await modelFiles(ctx, history, config.pdfInput ?? "file");
      const tools = toolSet(await ctx.tools());
      for (let step = 0; step < MAX_STEPS; step++) {
        const result = streamText({
          model,
          system: config.instruction,
          messages: toModelMessages([...history, ...turn], files),
          tools,
          maxRetries: 0,
          abortSignal: ctx.signal,
        });
        let text = "";
        let usage: UsageMetadata | undefined;
        const calls: { toolCallId: string; toolName: string; input: unknown }[] = [];
        for await (const part of result.fullStream) {
          if (part.type === "text-delta") {
            text += part.text;
            yield { type: "text-delta", text: part.text };
          } else if (part.type === "tool-call") {
            calls.push(part);
          } else if (part.type === "finish-step") {
            usage = stepUsage(part.usage);
          } else if (part.type === "error") {
            throw new Error(describeFailure(part.error));
          }
        }
        if (ctx.signal.aborted) return;
        // The step's usage goes on its first output; a step that said nothing still reports what it cost.
        if (text || (calls.length === 0 && usage)) {
          yield { type: "event", parts: [{ text }], usage };
          turn.push(asEvent([{ text }]));
          usage = undefined;
        }
        if (calls.length === 0) return;
        const asked = calls.map((c) => ({ id: c.toolCallId, name: c.toolName, args: (c.input ?? {}) as Record<string, Json> }));
        // The runtime answers with every response, or ends the turn here while a call waits for the user.
        const responses = (yield { type: "calls", calls: asked, usage }) ?? [];
        asked.forEach((call, i) => {
          turn.push(
            asEvent([{ function_call: call }]),
            asEvent([{ function_response: { id: call.id, name: call.name, response: responses[i] ?? {} } }]),
          );
        });
      }
      throw new Error(`The model kept calling tools for ${MAX_STEPS} steps; stopping this turn.`);
    },
  };
}
