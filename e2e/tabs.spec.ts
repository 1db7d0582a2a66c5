import { ChatPage } from "./support/chat-page";
import { expect, test } from "./support/fixtures";

test.describe("two tabs of one chat", () => {
  test("the second tab follows a rewind, an Undo, a turn, a version switch and a fork made in the first", async ({ chat, context }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    await chat.sendMessage("set color to blue");
    const second = new ChatPage(await context.newPage());
    await second.open(`/chat/${chat.sessionId()}`);
    await second.expectUserMessages(["set color to red", "set color to blue"]);

    await chat.messageAction("set color to blue", "Rewind to here");
    await second.expectUserMessages(["set color to red"]);
    await expect(await second.stateValue("color")).toContainText("red");
    await chat
      .toast(/Rewound 1 turn/)
      .getByRole("button", { name: "Undo" })
      .click();
    await second.expectUserMessages(["set color to red", "set color to blue"]);

    await chat.composer.fill("");
    await chat.sendMessage("set color to green");
    await second.expectUserMessages(["set color to red", "set color to blue", "set color to green"]);
    await expect(await second.stateValue("color")).toContainText("green");

    await chat.messageAction("set color to green", "Edit & resend");
    await chat.page.getByRole("textbox", { name: "Edit message" }).fill("set color to teal");
    await chat.page.getByRole("button", { name: "Send edit" }).click();
    await chat.waitForTurnEnd();
    await second.expectUserMessages(["set color to red", "set color to blue", "set color to teal"]);
    await chat.page.getByTestId("version-pager").getByRole("button", { name: "Previous version" }).click();
    await second.expectUserMessages(["set color to red", "set color to blue", "set color to green"]);
    await expect(second.page.getByTestId("version-pager")).toHaveText("1 / 2");

    await chat.messageAction("set color to blue", "Fork chat from here");
    await expect(chat.heading).toHaveText("Fork of set color to red");
    await expect(second.sidebarChat("Fork of set color to red")).toBeVisible();
    await expect(second.statePanel.getByRole("link", { name: "Fork of set color to red" })).toBeVisible();
  });

  test("a tab that missed a change does not send into the changed history: it says so, shows the latest and keeps the text", async ({
    chat,
    page,
  }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    await chat.sendMessage("set color to blue");
    const id = chat.sessionId();
    // Another client rewinds the chat; this tab hears nothing of it.
    const tasks = await (await page.request.get(`/api/sessions/${id}/tasks`)).json();
    const blue = tasks.data[1].metadata.kagent_invocation_id;
    expect((await page.request.post(`/api/sessions/${id}/rewind`, { data: { rewind_before_invocation_id: blue } })).status()).toBe(200);
    await chat.expectUserMessages(["set color to red", "set color to blue"]);

    await chat.composer.fill("set color to green");
    await chat.send.click();
    await expect(chat.toast(/changed in another tab or window/)).toBeVisible();
    await chat.waitForTurnEnd();
    await chat.expectUserMessages(["set color to red"]);
    await expect(chat.composer).toHaveValue("set color to green");
    await expect(await chat.stateValue("color")).toContainText("red");
    await expect(page.getByTestId("failed-turn")).toHaveCount(0);

    await chat.send.click();
    await chat.waitForTurnEnd();
    await chat.expectUserMessages(["set color to red", "set color to green"]);
    await expect(await chat.stateValue("color")).toContainText("green");
  });

  test("an edit sent from a stale tab is refused too, and its text is kept", async ({ chat, page }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    await chat.sendMessage("set color to blue");
    const id = chat.sessionId();
    const message = {
      kind: "message",
      role: "user",
      messageId: crypto.randomUUID(),
      parts: [{ kind: "text", text: "set size to large" }],
      contextId: id,
    };
    const sent = await page.request.post("/api/a2a/demo", { data: { jsonrpc: "2.0", id: 1, method: "message/send", params: { message } } });
    expect((await sent.json()).result.status.state).toBe("completed");

    await chat.messageAction("set color to blue", "Edit & resend");
    await page.getByRole("textbox", { name: "Edit message" }).fill("set color to teal");
    await page.getByRole("button", { name: "Send edit" }).click();
    await expect(chat.toast(/changed in another tab or window/)).toBeVisible();
    await chat.waitForTurnEnd();
    await chat.expectUserMessages(["set color to red", "set color to blue", "set size to large"]);
    await expect(chat.composer).toHaveValue("set color to teal");
    await expect(await chat.stateValue("color")).toContainText("blue");
  });
});
