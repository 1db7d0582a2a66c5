import "server-only";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { APICallError, jsonSchema, streamText, type ToolSet, tool } from "ai";
import type { ModelAgentConfig } from "@/lib/config";
import type { AdkEvent, Json, Part } from "@/lib/session/types";
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

/** An OpenAI-compatible chat model behind the same invocation/event pipeline as the demo agent. */
export function modelAgent(config: ModelAgentConfig): Agent {
  const provider = createOpenAICompatible({ name: config.name, baseURL: config.baseURL, apiKey: config.apiKey });
  return {
    name: config.name,
    description: config.description,
    mcp: config.mcp,
    async *run(ctx): AsyncGenerator<AgentOutput, void, CallResponses | undefined> {
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
      const tools = toolSet(await ctx.tools());
      for (let step = 0; step < MAX_STEPS; step++) {
        const result = streamText({
          model: provider.chatModel(config.model),
          system: config.instruction,
          messages: toModelMessages([...history, ...turn]),
          tools,
          maxRetries: 0,
          abortSignal: ctx.signal,
        });
        let text = "";
        const calls: { toolCallId: string; toolName: string; input: unknown }[] = [];
        for await (const part of result.fullStream) {
          if (part.type === "text-delta") {
            text += part.text;
            yield { type: "text-delta", text: part.text };
          } else if (part.type === "tool-call") {
            calls.push(part);
          } else if (part.type === "error") {
            throw new Error(describeFailure(part.error));
          }
        }
        if (ctx.signal.aborted) return;
        if (text) {
          yield { type: "event", parts: [{ text }] };
          turn.push(asEvent([{ text }]));
        }
        if (calls.length === 0) return;
        const asked = calls.map((c) => ({ id: c.toolCallId, name: c.toolName, args: (c.input ?? {}) as Record<string, Json> }));
        // The runtime answers with every response, or ends the turn here while a call waits for the user.
        const responses = (yield { type: "calls", calls: asked }) ?? [];
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
