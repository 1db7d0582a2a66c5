import { expect, test } from "./support/fixtures";

test.describe("Fork chat from here", () => {
  test("opens the fork with the earlier conversation, state and lineage; the source is unchanged", async ({ chat, page }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    await chat.sendMessage("set color to blue");
    await chat.sendMessage("recap");
    const sourceId = chat.sessionId();
    await expect(chat.heading).toHaveText("set color to red");

    await chat.messageAction("set color to blue", "Fork chat from here");
    await expect(page).not.toHaveURL(new RegExp(sourceId));
    await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
    const forkId = chat.sessionId();
    await chat.expectUserMessages(["set color to red"]);
    await expect(chat.composer).toHaveValue("set color to blue");
    await expect(await chat.stateValue("color")).toContainText("red");
    await expect(chat.heading).toHaveText("Fork of set color to red");
    await expect(page).toHaveTitle("Fork of set color to red");
    await expect(chat.sidebarChat("Fork of set color to red")).toHaveAttribute("aria-current", "page");
    await expect(chat.sidebarChat(/^set color to red$/)).toBeVisible();
    const banner = page.getByRole("link", { name: "Forked from set color to red" });
    await expect(banner).toHaveAttribute("href", `/chat/${sourceId}`);

    await chat.composer.fill("");
    await chat.sendMessage("recap");
    await expect(chat.agentMessages().last()).toContainText("set color to red");
    await expect(chat.agentMessages().last()).not.toContainText("set color to blue");
    await expect(chat.heading).toHaveText("Fork of set color to red");

    await banner.click();
    await expect(page).toHaveURL(new RegExp(`/chat/${sourceId}$`));
    await chat.expectUserMessages(["set color to red", "set color to blue", "recap"]);
    await expect(await chat.stateValue("color")).toContainText("blue");
    await expect(chat.heading).toHaveText("set color to red");
    await expect(chat.statePanel.getByRole("link", { name: "Fork of set color to red" })).toHaveAttribute("href", `/chat/${forkId}`);
  });

  test("a fork keeps its conversation and state when its source is deleted (it shared the source's turns)", async ({ chat, page }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    await chat.sendMessage("set color to blue");
    const sourceId = chat.sessionId();
    await chat.messageAction("set color to blue", "Fork chat from here");
    await expect(chat.heading).toHaveText("Fork of set color to red");
    await chat.composer.fill("");
    await chat.sendMessage("set size to large");
    const source = chat.sidebarChat(/^set color to red$/);
    await source.hover();
    await source.locator("..").getByRole("button", { name: "Chat actions" }).click();
    await page.getByRole("menuitem", { name: "Delete" }).click();
    await expect(source).toHaveCount(0);
    // Closing the Undo offer deletes it on the server.
    await chat
      .toast(/^Deleted/)
      .getByRole("button", { name: "Close" })
      .click();
    await expect.poll(async () => (await page.request.get(`/api/sessions/${sourceId}`)).status()).toBe(404);
    await chat.sidebarChat("Fork of set color to red").click();
    await page.reload();
    await chat.expectUserMessages(["set color to red", "set size to large"]);
    await expect(await chat.stateValue("color")).toContainText("red");
    await expect(page.getByText("Forked from a deleted chat")).toBeVisible();
    await page.screenshot({ path: test.info().outputPath("fork-after-source-deleted.png") });

    await chat.messageAction("set size to large", "Rewind to here");
    await chat.expectUserMessages(["set color to red"]);
    await chat.sendMessage("recap");
    await expect(chat.agentMessages().last()).toContainText("set color to red");
  });

  test("Duplicate from the sidebar copies the whole chat", async ({ chat, page }) => {
    await chat.open();
    await chat.sendMessage("set color to teal");
    await chat.sendMessage("hello again");
    await chat.sidebarChat(/set color to teal/).hover();
    await page.getByRole("button", { name: "Chat actions" }).first().click();
    await page.getByRole("menuitem", { name: "Duplicate" }).click();
    await expect(chat.sidebarChat(/^Fork of/)).toBeVisible();
    await chat.expectUserMessages(["set color to teal", "hello again"]);
    await expect(await chat.stateValue("color")).toContainText("teal");
  });
});
