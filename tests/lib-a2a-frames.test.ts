import { formatSSEEvent } from "@a2a-js/sdk";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import { type A2ARequestHandler, JsonRpcTransportHandler, ServerCallContext } from "@a2a-js/sdk/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { frameOf, type TurnEvent } from "@/lib/a2a/frames";
import { streamTurn } from "@/lib/a2a/turns";
import { toStreamResponse, withOrigin } from "@/lib/a2a/wire";
import { getAgent } from "@/lib/agent/registry";
import { startTurn } from "@/lib/agent/runtime";
import type { Task, TaskStatusUpdateEvent } from "@/lib/task/types";
import { fixture } from "./helpers";
import { legacyMessage, v1Message } from "./support/a2a";

/** lib/a2a/frames.ts writes a stream's frames itself: byte for byte what the SDK's transports write for the same events. */
const ORIGIN = "https://retrace.example";

/** The frames as the SDK writes them: its transport of the dialect around a handler yielding the events as v1.0 objects. */
async function sdkBytes(events: TurnEvent[], legacy: boolean): Promise<string> {
  const handler = {
    getAgentCard: async () => ({ capabilities: { streaming: true } }),
    async *sendMessageStream() {
      for (const event of events) yield withOrigin(toStreamResponse(structuredClone(event)), ORIGIN);
    },
  } as unknown as A2ARequestHandler;
  const transport = legacy ? new LegacyJsonRpcTransportHandler(handler) : new JsonRpcTransportHandler(handler);
  const request = legacy
    ? { jsonrpc: "2.0", id: 7, method: "message/stream", params: { message: legacyMessage("hi") } }
    : { jsonrpc: "2.0", id: 7, method: "SendStreamingMessage", params: { message: v1Message("hi") } };
  const context = new ServerCallContext({ requestedVersion: legacy ? "0.3" : "1.0" });
  let bytes = "";
  for await (const frame of (await transport.handle(request, context)) as AsyncGenerator<{ result: Record<string, unknown> }>) {
    // What kagent reads: the pause for a decision ends a v0.3 stream (lib/a2a/frames.ts).
    if (legacy && frame.result.kind === "status-update" && (frame.result.status as { state: string }).state === "input-required")
      frame.result.final = true;
    bytes += formatSSEEvent(frame);
  }
  return bytes;
}

const ourBytes = (events: TurnEvent[], legacy: boolean) =>
  events.map((event) => formatSSEEvent(frameOf(structuredClone(event), { id: 7, legacy, origin: ORIGIN }))).join("");

const task: Task = {
  kind: "task",
  id: "6f1c6f6e-2c44-4a43-a2b4-0c1c9f0c5d11",
  contextId: "0b6d9d1e-6a6f-4c4e-8c5e-1a2b3c4d5e6f",
  status: { state: "submitted", timestamp: "2026-11-26T10:00:00.000Z" },
  history: [
    {
      kind: "message",
      messageId: "u1",
      role: "user",
      parts: [
        { kind: "text", text: "see this" },
        { kind: "file", file: { uri: "/api/sessions/x/artifacts/a.png?version=0", mimeType: "image/png", name: "a.png" } },
      ],
      contextId: "0b6d9d1e-6a6f-4c4e-8c5e-1a2b3c4d5e6f",
      taskId: "6f1c6f6e-2c44-4a43-a2b4-0c1c9f0c5d11",
      metadata: { kagent_invocation_id: "e-1", kagent_event_id: "u1" },
    },
  ],
  metadata: { kagent_invocation_id: "e-1", kagent_agent: "assistant", retrace_model: "fake-model" },
};

const partial = (text: string, metadata: Record<string, unknown> = task.metadata ?? {}): TaskStatusUpdateEvent => ({
  kind: "status-update",
  taskId: task.id,
  contextId: task.contextId,
  status: {
    state: "working",
    timestamp: "2026-11-26T10:00:01.123Z",
    message: {
      kind: "message",
      messageId: crypto.randomUUID(),
      role: "agent",
      parts: [{ kind: "text", text }],
      contextId: task.contextId,
      taskId: task.id,
      metadata: { kagent_invocation_id: "e-1", kagent_author: "assistant", adk_partial: true },
    },
  },
  final: false,
  metadata,
});

const dialects = [
  { name: "v0.3", legacy: true },
  { name: "v1.0", legacy: false },
];

describe.each(dialects)("SSE frames, $name", ({ legacy }) => {
  beforeEach(() => {
    process.env.DEMO_WORD_DELAY_MS = "0";
  });
  afterEach(() => {
    delete process.env.DEMO_WORD_DELAY_MS;
  });

  it("a streamed turn's frames are the SDK's bytes", async () => {
    const f = await fixture();
    const turn = await startTurn({ userId: f.userId, sessionId: f.sessionId, agent: getAgent("demo"), text: "set color to red" });
    const events: TurnEvent[] = [];
    for await (const event of streamTurn(turn.updates)) events.push(event);
    const partials = events.filter((e) => e.kind === "status-update" && e.status.message?.metadata?.adk_partial);
    expect(partials.length).toBeGreaterThan(1);
    expect(events.length).toBeGreaterThan(partials.length + 2);
    expect(ourBytes(events, legacy)).toBe(await sdkBytes(events, legacy));
  });

  it("streamed text of any kind, usage and cost in the task's metadata, a pause and file URLs: the SDK's bytes", async () => {
    const usage = { kagent_usage_metadata: { prompt_token_count: 12, candidates_token_count: 3, total_token_count: 15 } };
    const events: TurnEvent[] = [
      task,
      ...["", " ", 'quote " and \\ backslash', "line\nbreak\ttab", "é ü 漢字 🙂", "\u2028\u2029", "\ud800 lone", "</script>"].map((t) =>
        partial(t),
      ),
      partial("cost", { ...task.metadata, ...usage, retrace_cost: 0.1 + 0.2, nested: { list: [1, "two", null, false] } }),
      {
        kind: "status-update",
        taskId: task.id,
        contextId: task.contextId,
        status: {
          state: "input-required",
          timestamp: "2026-11-26T10:00:02.000Z",
          message: { ...partial("ok?").status.message!, metadata: {} },
        },
        final: false,
        metadata: task.metadata,
      },
      {
        kind: "status-update",
        taskId: task.id,
        contextId: task.contextId,
        status: { ...task.status, state: "completed" },
        final: true,
        metadata: task.metadata,
      },
    ];
    expect(ourBytes(events, legacy)).toBe(await sdkBytes(events, legacy));
  });
});
