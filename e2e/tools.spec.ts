import { SendMessageRequest, type Task, TaskState } from "@a2a-js/sdk";
import { ClientFactory, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import type { Page } from "@playwright/test";
import { guestToken, type Instance, instance, startInstance } from "./support/api-client";
import { ChatPage } from "./support/chat-page";
import { expect, test } from "./support/fixtures";
import { INSTANCE_A, INSTANCE_B, POSTGRES_PORT, SHARED_SECRET } from "./support/instances";

/** Tools that act in the world (docs/semantics.md, "Tools"): the built-in todo list of the demo agent, behind approval. */

const card = (page: Page) => page.getByTestId("approval-card");
const reply = (chat: ChatPage, text: string | RegExp) => chat.agentMessages().filter({ hasText: text });

/** The numbered list in the last reply (`list todos`). */
const todoItems = (chat: ChatPage) => chat.agentMessages().last().getByRole("listitem");

/** Sends a message whose call waits for approval: the turn ends with the card on screen. */
async function ask(chat: ChatPage, text: string) {
  await chat.composer.fill(text);
  await chat.send.click();
  await expect(card(chat.page)).toBeVisible();
  await chat.waitForTurnEnd();
}

test.describe("tools that act in the world", () => {
  test("approve runs the call once; the composer waits for the decision; a reload keeps the card", async ({ chat }) => {
    await chat.open();
    await ask(chat, "add todo buy milk");
    await expect(card(chat.page)).toContainText("Run todos__add_todo?");
    await expect(card(chat.page)).toContainText('"text": "buy milk"');
    await expect(chat.composer).toHaveAttribute("placeholder", /Approve or deny the tool call above/);
    await chat.composer.fill("something else");
    await expect(chat.send).toBeDisabled();
    await chat.page.reload();
    await expect(card(chat.page)).toBeVisible();
    await card(chat.page).getByRole("button", { name: "Approve" }).click();
    await expect(reply(chat, "Added buy milk")).toBeVisible();
    await expect(card(chat.page)).toHaveCount(0);
    await chat.waitForTurnEnd();
    await chat.sendMessage("list todos");
    await expect(todoItems(chat)).toHaveText(["buy milk"]);
  });

  test("deny with a reason never runs the call; always allow runs the next ones without asking", async ({ chat }) => {
    await chat.open();
    await ask(chat, "add todo walk the dog");
    await card(chat.page).getByRole("textbox", { name: "Reason for denying (optional)" }).fill("it is raining");
    await card(chat.page).getByRole("button", { name: "Deny" }).click();
    await expect(reply(chat, "I did not add walk the dog: you denied it. (it is raining)")).toBeVisible();
    await chat.waitForTurnEnd();
    await ask(chat, "add todo first");
    await card(chat.page).getByRole("checkbox", { name: "Always allow in this chat" }).check();
    await card(chat.page).getByRole("button", { name: "Approve" }).click();
    await expect(reply(chat, "Added first")).toBeVisible();
    await chat.waitForTurnEnd();
    await chat.sendMessage("add todo second");
    await expect(reply(chat, "Added second")).toBeVisible();
    await expect(card(chat.page)).toHaveCount(0);
    await expect(chat.statePanel).toContainText("retrace:always_allow");
    await chat.sendMessage("list todos");
    await expect(todoItems(chat)).toHaveText(["first", "second"]);
  });

  test("rewinding past an approved call warns first, and the rewound call says it was not undone; a fork after it runs nothing again", async ({
    chat,
  }) => {
    await chat.open();
    await ask(chat, "add todo call the bank");
    await card(chat.page).getByRole("button", { name: "Approve" }).click();
    await expect(reply(chat, "Added call the bank")).toBeVisible();
    await chat.waitForTurnEnd();
    await chat.sendMessage("set color to red");

    await chat.messageAction("add todo call the bank", "Rewind to here");
    const warning = chat.page.getByRole("alertdialog");
    await expect(warning).toContainText("1 action done in the world will not be undone");
    await warning.getByRole("button", { name: "Cancel" }).click();
    await expect(chat.userMessages()).toHaveCount(2);

    await chat.messageAction("add todo call the bank", "Rewind to here");
    await chat.page.getByRole("alertdialog").getByRole("button", { name: "Continue" }).click();
    await expect(chat.userMessages()).toHaveCount(0);
    await chat.showRewoundTurns();
    await expect(chat.page.getByTestId("rewound-turn").getByTestId("done-in-world")).toHaveText("Done in the world — not undone");
    await chat.showRewoundTurns();
    await chat.toast("Rewound").getByRole("button", { name: "Undo" }).click();
    await expect(chat.userMessages()).toHaveCount(2);

    await chat.messageAction("set color to red", "Fork chat from here");
    await expect(chat.composer).toHaveValue("set color to red");
    await chat.send.click();
    await chat.waitForTurnEnd();
    await chat.sendMessage("list todos");
    await expect(todoItems(chat)).toHaveText(["call the bank"]);
  });

  test("a decision from a second tab resumes the turn in both", async ({ chat, context }) => {
    await chat.open();
    await ask(chat, "add todo from another tab");
    const other = new ChatPage(await context.newPage());
    await other.open(`/chat/${chat.sessionId()}`);
    await card(other.page).getByRole("button", { name: "Approve" }).click();
    await expect(reply(other, "Added from another tab")).toBeVisible();
    await expect(reply(chat, "Added from another tab")).toBeVisible();
    await expect(card(chat.page)).toHaveCount(0);
  });
});

test.describe("approvals across instances on one PostgreSQL", () => {
  let a: Instance;
  let b: Instance;
  test.beforeEach(async () => {
    const token = await guestToken(INSTANCE_A);
    a = instance(INSTANCE_A, token);
    b = instance(INSTANCE_B, token);
  });

  /** A turn whose todo call waits, on `on`: its task and chat. */
  async function paused(on: Instance, text: string) {
    const results: Record<string, unknown>[] = [];
    for await (const r of on.stream({ text })) results.push(r);
    const first = results[0] as { id: string; contextId: string };
    expect(results.at(-1)).toMatchObject({ final: true, status: { state: "input-required" } });
    return { taskId: first.id, contextId: first.contextId };
  }
  const approve = (on: Instance, turn: { taskId: string; contextId: string }) =>
    on.rpc("message/send", {
      message: {
        kind: "message",
        role: "user",
        messageId: crypto.randomUUID(),
        ...turn,
        parts: [{ kind: "data", data: { decision_type: "approve" } }],
      },
    });
  const todos = async (on: Instance) => {
    const task = (await on.rpc("message/send", {
      message: { kind: "message", role: "user", messageId: crypto.randomUUID(), parts: [{ kind: "text", text: "list todos" }] },
    })) as {
      result: { history: { parts: { text?: string }[] }[] };
    };
    return task.result.history.at(-1)?.parts[0]?.text ?? "";
  };

  test("50 concurrent approvals on two instances run the call once", async () => {
    const turn = await paused(a, "add todo exactly once");
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => approve(i % 2 ? a : b, turn)));
    expect(answers.filter((r) => "error" in r)).toEqual([]);
    await expect
      .poll(async () => ((await a.rpc("tasks/get", { id: turn.taskId })) as { result: { status: { state: string } } }).result.status.state)
      .toBe("completed");
    expect((await todos(b)).match(/exactly once/g)).toHaveLength(1);
  });

  test("a call pending on an instance killed with SIGKILL is approved on another, which resumes it; a tab on A streams it", async ({
    page,
  }) => {
    test.setTimeout(120_000);
    const env = {
      NEXT_DIST_DIR: process.env.E2E_DIST_DIR ?? ".next-e2e",
      DATABASE_URL: `postgres://postgres@127.0.0.1:${POSTGRES_PORT}/postgres`,
      AUTH_SECRET: SHARED_SECRET,
      DEMO_WORD_DELAY_MS: "40",
    };
    const c = await startInstance(POSTGRES_PORT + 1, env);
    const turn = await paused(instance(c.base, a.token), "add todo survive a crash");
    c.process.kill("SIGKILL");
    await new Promise((r) => c.process.once("exit", r));

    await page.context().addCookies([{ name: "retrace_token", value: a.token, url: INSTANCE_A }]);
    await page.goto(`${INSTANCE_A}/chat/${turn.contextId}`);
    await expect(card(page)).toBeVisible();
    const approved = Date.now();
    const decided = approve(b, turn);
    await expect(page.getByTestId("agent-message").filter({ hasText: "Added" })).toBeVisible({ timeout: 10_000 });
    console.log(`approved on B: the tab on A showed the resumed turn ${Date.now() - approved} ms later`);
    expect(((await decided) as { result: { status: { state: string } } }).result.status.state).toBe("completed");
    expect(await todos(a)).toContain("survive a crash");
  });

  test("the official A2A client answers an input-required task with kagent's decision part", async () => {
    const withToken: typeof fetch = (input, init) =>
      fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${a.token}` } });
    const client = await new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl: withToken })] }).createFromUrl(
      `${INSTANCE_B}/api/a2a/demo/`,
    );
    const send = async (message: Record<string, unknown>) => (await client.sendMessage(SendMessageRequest.fromJSON({ message }))) as Task;
    const waiting = await send({ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "add todo from an A2A client" }] });
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const part = waiting.status?.message?.parts[0];
    expect(part?.metadata).toEqual({ kagent_type: "function_call", kagent_is_long_running: true });
    expect(part?.content).toMatchObject({ $case: "data", value: { name: "adk_request_confirmation" } });
    const done = await send({
      messageId: crypto.randomUUID(),
      role: "ROLE_USER",
      taskId: waiting.id,
      contextId: waiting.contextId,
      parts: [{ data: { decision_type: "approve" } }, { text: "Approved" }],
    });
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.id).toBe(waiting.id);
  });
});
