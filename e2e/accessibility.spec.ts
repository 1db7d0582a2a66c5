import { fakeModel } from "./support/fake-openai-client";
import { expect, test } from "./support/fixtures";

test.describe("screen readers and the keyboard", () => {
  test("messages say who said what, each message's buttons have names of their own, and a finished reply is announced", async ({
    chat,
    page,
  }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    const announcer = page.getByTestId("announcer");
    await expect(announcer).toHaveText("demo replied: Done — color is now red.");
    await chat.sendMessage("set color to blue");
    await expect(announcer).toHaveText("demo replied: Done — color is now blue.");

    await expect(page.getByRole("heading", { level: 2, name: "You said:" })).toHaveCount(2);
    await expect(page.getByRole("heading", { level: 2, name: "demo said:" })).toHaveCount(2);
    const names = async (pattern: RegExp) =>
      chat.conversation.getByRole("button", { name: pattern }).evaluateAll((buttons) => buttons.map((b) => b.getAttribute("aria-label")));
    expect(await names(/^Message actions/)).toEqual([
      "Message actions for “set color to red”",
      "Message actions for “set color to blue”",
      "Message actions for the reply to “set color to blue”",
    ]);
    expect(await names(/^Copy/)).toEqual([
      "Copy “set color to red”",
      "Copy the reply to “set color to red”",
      "Copy “set color to blue”",
      "Copy the reply to “set color to blue”",
    ]);
  });

  test("Escape stops a streaming reply, unless it closes something on top first", async ({ chat, page }) => {
    await fakeModel.reset(page.request);
    await chat.open();
    await chat.chooseAgent("assistant");
    await chat.sendMessage("hello model");
    await chat.composer.fill("slow please");
    await chat.send.click();
    const reply = chat.agentMessages().last();
    await expect(reply).toContainText("word2");

    // A menu open over the chat takes the first Escape.
    await page.getByRole("button", { name: "Chat actions" }).first().focus();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("menu")).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(page.getByRole("menu")).toHaveCount(0);
    await expect(chat.stop).toBeVisible();

    await chat.composer.focus();
    await page.keyboard.press("Escape");
    // "Stopped" shows only until the cancelled turn has ended and the chat is read again, which can take less
    // than the assertion's polling interval; the stored turn then says "Interrupted".
    await expect(reply).toContainText(/Stopped|Interrupted/);
    await chat.waitForTurnEnd();
    await expect(page.getByTestId("announcer")).toContainText("Stopped.");
    await page.reload();
    await expect(chat.agentMessages().last()).toContainText("Interrupted");
    await expect(chat.agentMessages().last()).not.toContainText("word199");
  });
});
