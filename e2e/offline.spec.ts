import { fakeModel } from "./support/fake-openai-client";
import { expect, test } from "./support/fixtures";

test.describe("offline", () => {
  test("a reply that ends while offline stays on screen, says it is reconnecting, and is complete once back online", async ({
    chat,
    page,
    context,
  }) => {
    await fakeModel.reset(page.request);
    await chat.open();
    await chat.chooseAgent("assistant");
    await chat.sendMessage("hello model");
    // 30 words, 100 ms apart: the reply ends while the browser is offline.
    await chat.composer.fill("take your time");
    await chat.send.click();
    const reply = chat.agentMessages().last();
    await expect(reply).toContainText("step2");
    await context.setOffline(true);

    const offline = page.getByRole("status").filter({ hasText: "You're offline" });
    await expect(offline).toBeVisible();
    // It promises what happens: the text stays, and sending is the person's to do once back.
    await expect(offline).toHaveText("You're offline. What you type stays here: send it once you're back.");
    await chat.composer.fill("draft while offline");
    await expect(chat.send).toBeDisabled();
    // The turn ends meanwhile; the chat cannot be read back, so the turn stays as it streamed, saying why.
    await expect(reply).toContainText("step29", { timeout: 15_000 });
    await expect(reply.getByText(/reconnecting/)).toBeVisible();
    await page.waitForTimeout(1_000);
    await chat.expectUserMessages(["hello model", "take your time"]);
    await expect(reply).toContainText("step29");

    await context.setOffline(false);
    await expect(offline).toHaveCount(0);
    await expect(page.getByText(/reconnecting/)).toHaveCount(0);
    await chat.waitForTurnEnd();
    await expect(chat.composer).toHaveValue("draft while offline");
    await page.reload();
    await chat.expectUserMessages(["hello model", "take your time"]);
    await expect(chat.agentMessages().last()).toContainText("step29");
  });

  test("a reply whose stream is cut off is followed again to its end, not lost", async ({ chat, page }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    // The next send's stream ends after its first frames, as when a proxy or an instance hangs up.
    let cut = false;
    await page.route("**/api/a2a/demo", async (route) => {
      if (cut || !route.request().postData()?.includes("SendStreamingMessage")) return route.continue();
      cut = true;
      const response = await route.fetch();
      const frames = (await response.text()).split("\n\n").filter(Boolean);
      await route.fulfill({ response, body: `${frames.slice(0, 3).join("\n\n")}\n\n` });
    });
    await chat.sendMessage("set color to blue");
    expect(cut).toBe(true);
    await chat.expectUserMessages(["set color to red", "set color to blue"]);
    await expect(chat.agentMessages().last()).toContainText("color is now blue");
    await expect(await chat.stateValue("color")).toContainText("blue");
  });

  test("Stop pressed while offline stops the reply once back online", async ({ chat, page, context }) => {
    await fakeModel.reset(page.request);
    await chat.open();
    await chat.chooseAgent("assistant");
    await chat.composer.fill("slow please");
    await chat.send.click();
    const reply = chat.agentMessages().last();
    await expect(reply).toContainText("word2");
    await context.setOffline(true);
    await expect(page.getByRole("status").filter({ hasText: "You're offline" })).toBeVisible();
    await chat.stop.click();
    await expect(reply).toContainText("Stopped");
    await context.setOffline(false);
    await chat.waitForTurnEnd();
    await page.reload();
    await expect(chat.agentMessages().last()).toContainText("Interrupted");
    await expect(chat.agentMessages().last()).not.toContainText("word199");
  });
});
