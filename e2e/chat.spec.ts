import { expect, test } from "./support/fixtures";

test.describe("chatting with the demo agent", () => {
  test("streams a reply, keeps the chat after a reload, lists it in the sidebar", async ({ chat, page }) => {
    await chat.open();
    await chat.composer.fill("hello there");
    await chat.send.click();
    await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
    await expect(page.getByRole("button", { name: "Stop" })).toBeVisible();
    await chat.waitForTurnEnd();
    await expect(chat.agentMessages().last()).toContainText("recap");
    await chat.expectUserMessages(["hello there"]);
    await expect(chat.sidebarChat(/hello there/)).toBeVisible();

    await page.reload();
    await chat.expectUserMessages(["hello there"]);
    await expect(chat.agentMessages()).toHaveCount(1);
  });

  test("tool calls show as blocks and state shows in the state panel", async ({ chat, page }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    await expect(page.getByText("update_state").first()).toBeVisible();
    await expect(await chat.stateValue("color")).toContainText("red");
    await chat.sendMessage("what is color?");
    await expect(chat.agentMessages().last()).toContainText("red");
  });

  test("saves a file and opens it from its chip", async ({ chat, page }) => {
    await chat.open();
    await chat.sendMessage("save file notes.txt with content hello from the test");
    const chip = chat
      .agentMessages()
      .getByRole("link", { name: /notes\.txt/ })
      .first();
    await expect(chip).toBeVisible();
    const [file] = await Promise.all([page.context().waitForEvent("page"), chip.click()]);
    await expect(file.locator("body")).toContainText("hello from the test");
    await expect(chat.statePanel.getByText("notes.txt")).toBeVisible();
  });

  test("renames and deletes a chat from the sidebar", async ({ chat, page }) => {
    await chat.open();
    await chat.sendMessage("hello rename me");
    const row = chat.sidebarChat(/hello rename me/);
    await row.hover();
    await page.getByRole("button", { name: "Chat actions" }).first().click();
    await page.getByRole("menuitem", { name: "Rename" }).click();
    const input = page.getByRole("textbox", { name: "Chat name" });
    await input.fill("Renamed chat");
    await input.press("Enter");
    await expect(chat.sidebarChat("Renamed chat")).toBeVisible();
    await page.reload();
    await expect(chat.sidebarChat("Renamed chat")).toBeVisible();

    await chat.sidebarChat("Renamed chat").hover();
    await page.getByRole("button", { name: "Chat actions" }).first().click();
    await page.getByRole("menuitem", { name: "Delete" }).click();
    await expect(chat.sidebarChat("Renamed chat")).toHaveCount(0);
    await expect(page).toHaveURL(/\/$/);
    await chat.toast("Deleted “Renamed chat”").getByRole("button", { name: "Close" }).click();
    await page.reload();
    await expect(chat.composer).toBeEditable();
    await expect(chat.sidebarChat("Renamed chat")).toHaveCount(0);
  });

  test("on a phone, the chats open in a drawer", async ({ chat, page }) => {
    await page.setViewportSize({ width: 390, height: 780 });
    await chat.open();
    await chat.sendMessage("hello from a phone");
    await page.goto("/");
    await page.getByRole("button", { name: "Open chats" }).click();
    await page
      .getByRole("dialog", { name: "Chats" })
      .getByRole("link", { name: /hello from a phone/ })
      .click();
    await chat.expectUserMessages(["hello from a phone"]);
    await expect(page.getByRole("dialog")).toHaveCount(0);
  });

  test("markdown never renders raw HTML or javascript: links", async ({ chat, page }) => {
    const alerts: string[] = [];
    page.on("dialog", (d) => {
      alerts.push(d.message());
      void d.dismiss();
    });
    await chat.open();
    await chat.sendMessage('save file x.md with content <img src=x onerror="alert(1)"> [click](javascript:alert(2)) **bold**');
    await chat.sendMessage("load file x.md");
    const reply = chat.agentMessages().last();
    await expect(reply.locator("strong", { hasText: "bold" })).toBeVisible();
    await expect(reply.locator("img")).toHaveCount(0);
    await expect(reply.locator('a[href^="javascript"]')).toHaveCount(0);
    await reply.getByText("click", { exact: true }).first().click();
    expect(alerts).toEqual([]);
  });
});
