import { fakeModel, shownTexts } from "./support/fake-openai-client";
import { expect, test } from "./support/fixtures";

// The `assistant` agent talks to the fake OpenAI-compatible server the suite starts.
test.describe("a real model through the AI SDK", () => {
  test.beforeEach(async ({ chat, page }) => {
    await fakeModel.reset(page.request);
    await chat.open();
    await chat.chooseAgent("assistant");
  });

  test("streams the reply, and a tool call updates the state panel", async ({ chat }) => {
    await chat.sendMessage("hello model");
    await expect(chat.agentMessages().last()).toContainText("You said: hello model (I can see 1 user message)");
    await chat.sendMessage("remember color is green");
    await expect(chat.agentMessages().last()).toContainText("update_state");
    await expect(await chat.stateValue("color")).toContainText("green");
  });

  test("after Rewind to here, the model is never sent the rewound turns", async ({ chat, page }) => {
    await chat.sendMessage("first question");
    await chat.sendMessage("remember color is green");
    await chat.sendMessage("third question");
    await chat.messageAction("remember color is green", "Rewind to here");
    await chat.expectUserMessages(["first question"]);
    await expect(chat.statePanel.getByTestId("state-color")).toHaveCount(0);

    await fakeModel.reset(page.request);
    await chat.composer.fill("after the rewind");
    await chat.send.click();
    await chat.waitForTurnEnd();
    await expect(chat.agentMessages().last()).toContainText("I can see 2 user messages");
    const [sent] = await fakeModel.requests(page.request);
    expect(shownTexts(sent, "user")).toEqual(["first question", "after the rewind"]);
    const conversation = sent.body.messages.filter((m) => m.role !== "system");
    expect(JSON.stringify(conversation)).not.toMatch(/remember color|third question|update_state/);
  });

  test("Stop ends the turn, keeps what streamed and cancels the request to the model", async ({ chat, page }) => {
    await chat.composer.fill("slow please");
    await chat.send.click();
    await expect(chat.agentMessages().last()).toContainText("word3");
    await page.getByRole("button", { name: "Stop" }).click();
    await chat.waitForTurnEnd();
    await expect(chat.agentMessages().last()).toContainText("word3");
    await expect(chat.agentMessages().last()).not.toContainText("word199");
    await expect.poll(async () => (await fakeModel.requests(page.request)).at(-1)?.aborted).toBe(true);
    await page.reload();
    await expect(chat.agentMessages().last()).toContainText("word3");
  });

  for (const [prompt, shown] of [
    ["fail 401", /HTTP 401/],
    ["fail 429", /HTTP 429/],
    ["malformed stream", /model endpoint failed/i],
  ] as const) {
    test(`a failing endpoint (${prompt}) shows as a failed turn and the chat goes on`, async ({ chat, page }) => {
      await chat.sendMessage(prompt);
      await expect(chat.agentMessages().last()).toContainText(shown);
      await page.reload();
      await expect(chat.agentMessages().last()).toContainText(shown);
      await chat.sendMessage("still there?");
      await expect(chat.agentMessages().last()).toContainText("You said: still there?");
    });
  }
});
