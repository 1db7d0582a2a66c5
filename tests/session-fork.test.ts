import { describe, expect, it } from "vitest";
import { agentNote, eventToMessage } from "@/lib/a2a/convert";
import type { Task } from "@/lib/a2a/types";
import { copyTaskJson } from "@/lib/session/fork";
import { event } from "./helpers";

describe("copyTaskJson (SPEC §2.3 step 6)", () => {
  it("gives the task and every message new ids and the fork as context, and leaves content alone", () => {
    const user = event("inv", { author: "user", text: 'a "contextId":"source" look-alike' });
    const call = {
      ...event("inv"),
      content: { parts: [{ function_call: { name: "t", args: { messageId: "mine", contextId: "other" } } }] },
    };
    const task: Task = {
      kind: "task",
      id: "task-1",
      contextId: "source",
      status: { state: "failed", message: agentNote("oops", "source", "task-1", {}) },
      history: [eventToMessage(user, "source", "task-1"), eventToMessage(call, "source", "task-1")],
      metadata: { kagent_invocation_id: "inv" },
    };
    const { id, json } = copyTaskJson(JSON.stringify(task), { taskId: "task-1", from: "source", to: "fork" });
    const copy = JSON.parse(json) as Task;
    expect(copy.id).toBe(id);
    expect(id).not.toBe("task-1");
    expect(copy.contextId).toBe("fork");
    const messages = [...copy.history!, copy.status.message!];
    for (const m of messages) expect(m).toMatchObject({ contextId: "fork", taskId: id });
    const oldIds = [...task.history!, task.status.message!].map((m) => m.messageId);
    expect(messages.map((m) => m.messageId).filter((m) => oldIds.includes(m))).toEqual([]);
    expect(new Set(messages.map((m) => m.messageId)).size).toBe(3);
    expect(copy.history![0].parts).toEqual(task.history![0].parts);
    expect(copy.history![1].parts).toEqual(task.history![1].parts);
    expect(copy.metadata).toEqual(task.metadata);
  });
});
