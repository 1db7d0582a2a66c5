import { beforeEach, describe, expect, it } from "vitest";
import { appendEvents, createSession, forkSession, getSession, listTasks } from "@/lib/db/queries";
import type { Task } from "@/lib/task/types";
import { event } from "./helpers";
import { legacyMessage, rpc, v1Message } from "./support/a2a";
import { newGuest, snapshot } from "./support/api";

/** `retrace_last_invocation_id`: a send from a view of the chat that is no longer its history is refused. */
let user: { user_id: string; token: string };
beforeEach(async () => {
  process.env.DEMO_WORD_DELAY_MS = "0";
  user = await newGuest();
});

const sendV03 = (text: string, contextId?: string, metadata?: Record<string, unknown>, messageId?: string) =>
  rpc(user.token, "message/send", { message: { ...legacyMessage(text, contextId, metadata), ...(messageId ? { messageId } : {}) } });
const send = async (text: string, contextId?: string, metadata?: Record<string, unknown>) =>
  (await sendV03(text, contextId, metadata)).json.result as Task;
const last = (invocationId: string | null) => ({ retrace_last_invocation_id: invocationId });
const idOf = (task: Task) => task.metadata!.kagent_invocation_id as string;

describe("sending from a stale view", () => {
  it("runs the turn when the sender's last turn is the chat's, and refuses it (409 history_changed, nothing written) when not", async () => {
    const first = await send("set color to red");
    const second = await send("set color to blue", first.contextId, last(idOf(first)));
    expect(second.status.state).toBe("completed");

    const before = await snapshot();
    const { json } = await sendV03("set color to green", first.contextId, last(idOf(first)));
    expect(json.error).toMatchObject({ code: -32602, data: { code: "history_changed" } });
    expect(json.error.message).toMatch(/changed in another tab or window/);
    expect(await snapshot()).toEqual(before);
    expect((await getSession(user.user_id, first.contextId)).state).toEqual({ color: "blue" });
  });

  it("checks the view before an edit's rewind; no metadata means no check", async () => {
    const first = await send("set color to red");
    const second = await send("set color to blue", first.contextId);
    const edit = { kagent_rewind_before_invocation_id: idOf(second), retrace_rewind_reason: "edit" };
    expect((await sendV03("set color to teal", first.contextId, { ...edit, ...last(idOf(first)) })).json.error.data.code).toBe(
      "history_changed",
    );
    const edited = await send("set color to teal", first.contextId, { ...edit, ...last(idOf(second)) });
    expect(edited.status.state).toBe("completed");
    // An API client that says nothing is never refused, however stale its idea of the chat.
    expect((await send("set color to plum", first.contextId)).status.state).toBe("completed");
    expect((await listTasks(user.user_id, first.contextId)).items.map((t) => t.history?.[0].parts)).toHaveLength(3);
  });

  it("null means the sender shows no turns; a rewound chat's last visible turn is the one before the rewind", async () => {
    const empty = await createSession(user.user_id, {});
    expect((await send("hello", empty.id, last(null))).status.state).toBe("completed");
    expect((await sendV03("hello again", empty.id, last(null))).json.error.data.code).toBe("history_changed");

    const first = await send("one");
    const second = await send("two", first.contextId);
    await sendV03("", first.contextId, { kagent_rewind_before_invocation_id: idOf(second) });
    expect((await sendV03("three", first.contextId, last(idOf(second)))).json.error.data.code).toBe("history_changed");
    expect((await send("three", first.contextId, last(idOf(first)))).status.state).toBe("completed");
  });

  it("a retried send (same messageId) answers the task it started, though its own turn is now the last", async () => {
    const first = await send("one");
    const messageId = crypto.randomUUID();
    const sent = (await sendV03("two", first.contextId, last(idOf(first)), messageId)).json.result as Task;
    const again = (await sendV03("two", first.contextId, last(idOf(first)), messageId)).json.result as Task;
    expect(again.id).toBe(sent.id);
  });

  it("a fork's last turn is the one it shares with its source", async () => {
    const first = await send("one");
    const second = await send("two", first.contextId);
    const fork = await forkSession(user.user_id, first.contextId, {});
    expect((await sendV03("three", fork.id, last(idOf(first)))).json.error.data.code).toBe("history_changed");
    expect((await send("three", fork.id, last(idOf(second)))).status.state).toBe("completed");
  });

  it("events appended through the API without a task are no turn a client shows", async () => {
    const first = await send("one");
    await appendEvents(user.user_id, first.contextId, [event("e-raw", { author: "user", text: "raw" })]);
    expect((await send("two", first.contextId, last(idOf(first)))).status.state).toBe("completed");
  });

  it("works the same over A2A v1.0, a null value included", async () => {
    const v1 = (text: string, contextId: string, metadata: Record<string, unknown>) =>
      rpc(user.token, "SendMessage", { message: v1Message(text, contextId, metadata) }, { version: "1.0" });
    const empty = await createSession(user.user_id, {});
    const first = (await v1("one", empty.id, last(null))).json.result.task;
    expect(first.status.state).toBe("TASK_STATE_COMPLETED");
    const { json } = await v1("two", empty.id, last(null));
    expect(json.error).toMatchObject({ code: -32602, data: [{ metadata: { code: "history_changed" } }] });
  });
});
