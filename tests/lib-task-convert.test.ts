import { TaskState } from "@a2a-js/sdk";
import { V03PushNotificationSerializer } from "@a2a-js/sdk/compat/v0_3/server";
import { describe, expect, it } from "vitest";
import { toCoreTask } from "@/lib/a2a/wire";
import type { AdkEvent } from "@/lib/session/types";
import { agentNote, eventToMessage, joinHistories, messageText } from "@/lib/task/convert";
import type { Message, Part, Task } from "@/lib/task/types";

const base = { invocation_id: "e-1", timestamp: 1 };

describe("ADK event → A2A message", () => {
  it("maps a user text event", () => {
    const event: AdkEvent = { ...base, id: "u1", author: "user", content: { role: "user", parts: [{ text: "hi" }] } };
    expect(eventToMessage(event, "s1", "t1")).toEqual({
      kind: "message",
      messageId: "u1",
      role: "user",
      parts: [{ kind: "text", text: "hi" }],
      contextId: "s1",
      taskId: "t1",
      metadata: { kagent_invocation_id: "e-1", kagent_event_id: "u1" },
    });
  });

  it("maps tool calls and results to kagent data parts, with deltas as metadata", () => {
    const call: AdkEvent = {
      ...base,
      id: "a1",
      author: "demo",
      content: { role: "model", parts: [{ function_call: { id: "c1", name: "save_artifact", args: { filename: "n.txt" } } }] },
      actions: { state_delta: {}, artifact_delta: {} },
    };
    expect(eventToMessage(call, "s1", "t1")).toMatchObject({
      role: "agent",
      parts: [
        {
          kind: "data",
          data: { id: "c1", name: "save_artifact", args: { filename: "n.txt" } },
          metadata: { kagent_type: "function_call" },
        },
      ],
      metadata: { kagent_invocation_id: "e-1", kagent_author: "demo", kagent_event_id: "a1" },
    });
    expect(eventToMessage(call, "s1", "t1").metadata).not.toHaveProperty("kagent_artifact_delta");

    const response: AdkEvent = {
      ...base,
      id: "a2",
      author: "demo",
      content: { role: "model", parts: [{ function_response: { id: "c1", name: "save_artifact", response: { version: 0 } } }] },
      actions: { state_delta: { color: "red" }, artifact_delta: { "n.txt": 0 } },
    };
    const message = eventToMessage(response, "s1", "t1");
    expect(message.parts).toEqual([
      { kind: "data", data: { id: "c1", name: "save_artifact", response: { version: 0 } }, metadata: { kagent_type: "function_response" } },
    ]);
    expect(message.metadata).toMatchObject({ kagent_state_delta: { color: "red" }, kagent_artifact_delta: { "n.txt": 0 } });
  });

  it("marks interrupted text and turns an error event into readable text", () => {
    const interrupted: AdkEvent = { ...base, id: "a3", author: "demo", content: { parts: [{ text: "Hal" }] }, interrupted: true };
    expect(eventToMessage(interrupted, "s", "t").metadata?.kagent_interrupted).toBe(true);
    const failed: AdkEvent = {
      ...base,
      id: "a4",
      author: "demo",
      content: { parts: [] },
      error_code: "AGENT_ERROR",
      error_message: "boom",
    };
    expect(eventToMessage(failed, "s", "t")).toMatchObject({ parts: [{ kind: "text", text: "boom" }], metadata: { kagent_error: "boom" } });
  });

  it("maps inline data to a file part", () => {
    const event: AdkEvent = {
      ...base,
      id: "a5",
      author: "demo",
      content: { parts: [{ inline_data: { mime_type: "image/png", data: "AAA=" } }] },
    };
    expect(eventToMessage(event, "s", "t").parts).toEqual([{ kind: "file", file: { bytes: "AAA=", mimeType: "image/png" } }]);
  });
});

describe("helpers", () => {
  it("messageText joins text parts only", () => {
    expect(
      messageText({
        parts: [
          { kind: "text", text: "a" },
          { kind: "data", data: {} },
          { kind: "text", text: "b" },
        ],
      }),
    ).toBe("ab");
  });

  it("agentNote builds an agent text message", () => {
    expect(agentNote("x", "s", "t", { k: 1 })).toMatchObject({
      kind: "message",
      role: "agent",
      parts: [{ kind: "text", text: "x" }],
      contextId: "s",
      taskId: "t",
      metadata: { k: 1 },
    });
  });

  it("joinHistories concatenates task histories in order", () => {
    const task = (id: string, texts: string[]): Task => ({
      kind: "task",
      id,
      contextId: "s",
      status: { state: "completed" },
      history: texts.map((text) => agentNote(text, "s", id, {})),
    });
    expect(joinHistories([task("1", ["a", "b"]), task("2", ["c"])]).map(messageText)).toEqual(["a", "b", "c"]);
  });
});

describe("wire: Retrace's v0.3 shapes through the SDK's translators", () => {
  it("a task with text, data and file parts and an artifact survives v0.3 → v1.0 → v0.3 unchanged", () => {
    const message = (role: "user" | "agent", parts: Part[]): Message => ({
      kind: "message",
      messageId: `m-${role}`,
      role,
      parts,
      contextId: "s",
      taskId: "t",
      metadata: { kagent_invocation_id: "e-1" },
    });
    const task: Task = {
      kind: "task",
      id: "t",
      contextId: "s",
      status: { state: "completed", timestamp: "2026-01-01T00:00:00.000Z" },
      history: [
        message("user", [{ kind: "text", text: "hi" }]),
        message("agent", [
          {
            kind: "data",
            data: { id: "c1", name: "save_artifact", args: { filename: "n.txt" } },
            metadata: { kagent_type: "function_call" },
          },
          { kind: "file", file: { bytes: "AAA=", mimeType: "image/png" } },
        ]),
      ],
      artifacts: [{ artifactId: "a1", name: "n.txt", parts: [{ kind: "text", text: "hello" }], metadata: { version: 0 } }],
      metadata: { kagent_invocation_id: "e-1", kagent_agent: "demo" },
    };
    const core = toCoreTask(task);
    expect(core.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(core.history[1].parts[0].content).toEqual({
      $case: "data",
      value: { id: "c1", name: "save_artifact", args: { filename: "n.txt" } },
    });
    const back = JSON.parse(new V03PushNotificationSerializer().serialize({ payload: { $case: "task", value: core } }).body);
    expect(back).toEqual(task);
  });
});
