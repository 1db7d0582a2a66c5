import { describe, expect, it } from "vitest";
import { toModelMessages } from "@/lib/agent/model-messages";
import { parseConfig } from "@/lib/config";
import type { AdkEvent, Part } from "@/lib/session/types";

const ev = (author: string, parts: Part[]): AdkEvent => ({
  id: "x",
  invocation_id: "e-1",
  author,
  timestamp: 1,
  content: { role: author === "user" ? "user" : "model", parts },
});

describe("model messages from the effective history", () => {
  it("maps user text, tool calls, tool results and replies in order", () => {
    const messages = toModelMessages([
      ev("user", [{ text: "remember color is red" }]),
      ev("assistant", [{ function_call: { id: "c1", name: "update_state", args: { key: "color", value: "red" } } }]),
      ev("assistant", [{ function_response: { id: "c1", name: "update_state", response: { ok: true } } }]),
      ev("assistant", [{ text: "Saved." }]),
    ]);
    expect(messages).toEqual([
      { role: "user", content: "remember color is red" },
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "c1", toolName: "update_state", input: { key: "color", value: "red" } }],
      },
      {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "c1", toolName: "update_state", output: { type: "json", value: { ok: true } } }],
      },
      { role: "assistant", content: [{ type: "text", text: "Saved." }] },
    ]);
  });

  it("pairs calls and results without ids by tool name", () => {
    const messages = toModelMessages([
      ev("demo", [{ function_call: { name: "load_state", args: {} } }]),
      ev("demo", [{ function_response: { name: "load_state", response: {} } }]),
    ]);
    const call = messages[0].content as { toolCallId: string }[];
    const result = messages[1].content as { toolCallId: string }[];
    expect(result[0].toolCallId).toBe(call[0].toolCallId);
  });
});

describe("configuration", () => {
  it("adds `assistant` when OPENAI_BASE_URL is set, with the default model", () => {
    expect(parseConfig({} as NodeJS.ProcessEnv).modelAgents).toEqual([]);
    const [assistant] = parseConfig({
      OPENAI_BASE_URL: "http://127.0.0.1:1/v1",
      OPENAI_API_KEY: "k",
    } as unknown as NodeJS.ProcessEnv).modelAgents;
    expect(assistant).toMatchObject({
      name: "assistant",
      models: [{ name: "gpt-4o-mini", model: "gpt-4o-mini", apiKey: "k", baseURL: "http://127.0.0.1:1/v1" }],
    });
  });
});
