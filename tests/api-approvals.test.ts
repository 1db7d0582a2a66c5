import { beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/connection";
import { listTodos } from "@/lib/db/queries";
import { checkInvariants } from "@/lib/db/tx/invariants";
import { legacyMessage, rpc, v1Message } from "./support/a2a";
import { call, newGuest, routes, snapshot } from "./support/api";

/** The approval wire (docs/api.md, "Tool approval"): a turn that waits ends input-required; kagent's decision part resumes it. */
let user: { user_id: string; token: string };
beforeEach(async () => {
  process.env.DEMO_WORD_DELAY_MS = "0";
  user = await newGuest();
});

const stream = (message: unknown, token = user.token) => rpc(token, "message/stream", { message });
const decision = (taskId: string, contextId: string, data: Record<string, unknown>) => ({
  ...legacyMessage("Approved", contextId),
  taskId,
  parts: [
    { kind: "data", data },
    { kind: "text", text: "Approved" },
  ],
});

async function paused(text = "add todo buy milk") {
  const { frames } = await stream(legacyMessage(text));
  const first = frames[0].result;
  const last = frames.at(-1)?.result;
  return { taskId: first.id as string, contextId: first.contextId as string, last };
}

describe("A2A tool approval", () => {
  it("a waiting call ends the stream input-required, the call as a long-running function_call data part; approve resumes the same task", async () => {
    const { taskId, contextId, last } = await paused();
    expect(last).toMatchObject({ kind: "status-update", taskId, final: true, status: { state: "input-required" } });
    expect(last.status.message.parts).toEqual([
      {
        kind: "data",
        data: {
          id: expect.any(String),
          name: "adk_request_confirmation",
          args: {
            originalFunctionCall: { id: expect.any(String), name: "todos__add_todo", args: { text: "buy milk" } },
            toolConfirmation: { hint: "Approve todos__add_todo?", confirmed: false },
          },
        },
        metadata: { kagent_type: "function_call", kagent_is_long_running: true },
      },
    ]);
    const { frames } = await stream(decision(taskId, contextId, { decision_type: "approve" }));
    expect(frames[0].result).toMatchObject({ kind: "task", id: taskId, status: { state: "working" } });
    expect(frames.at(-1)?.result).toMatchObject({ taskId, final: true, status: { state: "completed" } });
    expect((await listTodos(user.user_id)).map((t) => t.text)).toEqual(["buy milk"]);
    // A repeated decision answers the task as it is: one frame, nothing run again.
    const again = await stream(decision(taskId, contextId, { decision_type: "approve" }));
    expect(again.frames.map((f) => f.result.status.state)).toEqual(["completed"]);
    expect(await listTodos(user.user_id)).toHaveLength(1);
  });

  it("v1.0: a rejection with its reason, sent with SendMessage, never reaches the tool server", async () => {
    const { taskId, contextId } = await paused();
    const message = { ...v1Message("", contextId), taskId, parts: [{ data: { decision_type: "reject", rejection_reason: "not now" } }] };
    const task = (await rpc(user.token, "SendMessage", { message }, { version: "1.0" })).json.result.task;
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(task.history.at(-1).parts[0].text).toContain("you denied it. (not now)");
    expect(await listTodos(user.user_id)).toEqual([]);
  });

  it("a new message while a call waits is refused; bad decisions are invalid params and change nothing", async () => {
    const { taskId, contextId } = await paused();
    const stranger = await newGuest();
    const before = await snapshot();
    const busy = await rpc(user.token, "message/send", { message: legacyMessage("list todos", contextId) });
    expect(busy.json.error).toMatchObject({ code: -32602, data: { code: "approval_pending" } });
    const noTask = await rpc(user.token, "message/send", {
      message: { ...decision(taskId, contextId, { decision_type: "approve" }), taskId: undefined },
    });
    expect(noTask.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/needs the taskId/) });
    const badBatch = await rpc(user.token, "message/send", { message: decision(taskId, contextId, { decision_type: "batch" }) });
    expect(badBatch.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/needs decisions by call id/) });
    const wrongIds = await rpc(user.token, "message/send", {
      message: decision(taskId, contextId, { decision_type: "batch", decisions: { nope: "approve" } }),
    });
    expect(wrongIds.json.error).toMatchObject({ code: -32602, message: expect.stringMatching(/missing .*unknown nope/) });
    const theirs = await rpc(stranger.token, "message/send", { message: decision(taskId, contextId, { decision_type: "approve" }) });
    expect(theirs.json.error).toMatchObject({ code: -32001 });
    expect(await snapshot()).toEqual(before);
  });
});

describe("a copy of a chat whose call waits", () => {
  const fork = async (contextId: string, body: Record<string, unknown> = {}) =>
    (await call(routes.fork.POST, { method: "POST", token: user.token, params: { id: contextId }, body })).json.data as { id: string };
  const tasks = async (sessionId: string) =>
    (await call(routes.tasks.GET, { token: user.token, path: "/api/x?include_rewound=true", params: { id: sessionId } })).json.data as {
      id: string;
      status: { state: string };
    }[];

  it("Duplicate: approving in the original runs the call once; the copy has it canceled, no decision runs it there, and it takes new messages", async () => {
    const { taskId, contextId } = await paused("add todo duplicated");
    const copy = await fork(contextId);
    const copied = await tasks(copy.id);
    expect(copied.map((t) => t.status.state)).toEqual(["canceled"]);
    const inCopy = await stream(decision(copied[0].id, copy.id, { decision_type: "approve" }));
    expect(inCopy.frames.map((f) => f.result.status.state)).toEqual(["canceled"]);
    const send = await rpc(user.token, "message/send", { message: legacyMessage("list todos", copy.id) });
    expect(send.json.result.status.state).toBe("completed");

    const { frames } = await stream(decision(taskId, contextId, { decision_type: "approve" }));
    expect(frames.at(-1)?.result).toMatchObject({ taskId, final: true, status: { state: "completed" } });
    expect((await listTodos(user.user_id)).map((t) => t.text)).toEqual(["duplicated"]);
    expect((await tasks(copy.id)).map((t) => t.status.state)).toEqual(["canceled", "completed"]);
    expect(await checkInvariants(await getDb(), [contextId, copy.id])).toEqual([]);
  });
});
