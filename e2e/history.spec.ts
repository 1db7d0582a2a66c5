import { PHONE } from "./support/devices";
import { expect, test } from "./support/fixtures";

test.describe("History", () => {
  test("tells versions apart — last message, version n of m, how each ended — and folds switches the pager made", async ({
    chat,
    page,
  }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    await chat.sendMessage("hello");
    await chat.agentMessages().last().hover();
    await chat.agentMessages().last().getByRole("button", { name: "Message actions" }).click();
    await page.getByRole("menuitem", { name: "Regenerate", exact: true }).click();
    await chat.waitForTurnEnd();
    const pager = page.getByTestId("version-pager");
    await expect(pager).toHaveText("2 / 2");
    for (const [arrow, shown] of [
      ["Previous version", "1 / 2"],
      ["Next version", "2 / 2"],
      ["Previous version", "1 / 2"],
    ]) {
      await pager.getByRole("button", { name: arrow }).click();
      await expect(pager).toHaveText(shown);
      await expect(chat.conversation).toHaveAttribute("aria-busy", "false");
    }

    await page.getByRole("button", { name: "History" }).click();
    const panel = page.getByRole("dialog", { name: "History" });
    const entries = panel.getByRole("list", { name: "Versions" }).locator("> li");
    await expect(entries).toHaveCount(3);
    await expect(entries.nth(0)).toContainText(/hello\s*2 turns · version 1 of 2\s*demo · \d+ tokens\s*Now · \d+:\d\d:\d\d/);
    await expect(entries.nth(0)).toContainText("Current");
    await expect(entries.nth(1)).toContainText(
      /hello\s*2 turns · version 2 of 2\s*demo · \d+ tokens\s*Before switching versions · \d+:\d\d:\d\d/,
    );
    await expect(entries.nth(2)).toContainText(/hello\s*2 turns · version 1 of 2\s*demo · \d+ tokens\s*Before Regenerate/);

    const folded = entries.nth(1).getByRole("button", { name: "2 earlier switches" });
    await expect(folded).toHaveAttribute("aria-expanded", "false");
    await expect(panel.getByTestId("version")).toHaveCount(3);
    await folded.click();
    await expect(folded).toHaveAttribute("aria-expanded", "true");
    const inner = entries.nth(1).getByTestId("version");
    await expect(inner).toHaveCount(2);
    await expect(inner.nth(0)).toContainText("version 1 of 2");
    await expect(inner.nth(1)).toContainText("version 2 of 2");
    await expect(inner.nth(1)).toContainText("Before switching versions");

    await entries.nth(1).getByRole("button", { name: "Restore" }).first().click();
    await expect(panel).toHaveCount(0);
    await expect(pager).toHaveText("2 / 2");
    await expect(chat.toast("Restored an earlier version")).toBeVisible();
  });

  test.describe("on a phone", () => {
    test.use(PHONE);
    test("its entries fit and are told apart", async ({ chat, page }) => {
      await chat.open();
      await chat.sendMessage("set color to red");
      await chat.sendMessage("set color to blue");
      await chat.userMessage("set color to blue").getByRole("button", { name: "Message actions" }).tap();
      await page.getByRole("menuitem", { name: "Edit & resend" }).tap();
      await page.getByRole("textbox", { name: "Edit message" }).fill("set color to green");
      await page.getByRole("button", { name: "Send edit" }).tap();
      await chat.waitForTurnEnd();
      await chat.openFromHeader("History", "tap");
      const entries = page.getByRole("dialog", { name: "History" }).getByTestId("version");
      await expect(entries).toHaveCount(2);
      await expect(entries.nth(0)).toContainText("set color to green");
      await expect(entries.nth(0)).toContainText("version 2 of 2");
      await expect(entries.nth(1)).toContainText("set color to blue");
      await expect(entries.nth(1)).toContainText("version 1 of 2");
      await expect(entries.nth(1)).toContainText("Before an edit");
      const restore = entries.nth(1).getByRole("button", { name: "Restore" });
      const box = (await restore.boundingBox())!;
      expect(box.height).toBeGreaterThanOrEqual(44);
      await page.screenshot({ path: test.info().outputPath("history-phone.png") });
    });
  });
});
