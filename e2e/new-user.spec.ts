import type { Locator } from "@playwright/test";
import { DESKTOP, PHONE } from "./support/devices";
import { expect, test } from "./support/fixtures";

/** Whether two boxes overlap on screen. */
async function overlap(a: Locator, b: Locator) {
  const [x, y] = [(await a.boundingBox())!, (await b.boundingBox())!];
  return x.x < y.x + y.width && y.x < x.x + x.width && x.y < y.y + y.height && y.y < x.y + x.height;
}

test.describe("a new user", () => {
  test.describe("on a desktop", () => {
    test.use(DESKTOP);

    test("an empty chat says what Rewind, Fork and versions do; the placeholder gives the keys", async ({ chat, page }) => {
      await chat.open();
      const hints = page.getByRole("list", { name: "What you can do with a chat" }).getByRole("listitem");
      await expect(hints).toHaveText([/^Rewind to here — .*Undo/, /^Fork chat from here — /, /^Versions — .*‹ 1 \/ 2 ›.*History/]);
      await expect(chat.composer).toHaveAttribute("placeholder", "Message the agent… (Enter to send, Shift+Enter for a new line)");
      await chat.sendMessage("hello");
      await expect(hints).toHaveCount(0);
    });

    test("Delete hides the chat at once and offers Undo; the chat is deleted only when the offer closes", async ({ chat, page }) => {
      await chat.open();
      await chat.sendMessage("set color to red");
      const id = chat.sessionId();
      const remove = async () => {
        await chat.sidebarChat("set color to red").hover();
        await page.getByRole("button", { name: "Chat actions" }).first().click();
        await page.getByRole("menuitem", { name: "Delete" }).click();
      };
      await remove();
      await expect(chat.sidebarChat("set color to red")).toHaveCount(0);
      await expect(page).toHaveURL(/\/$/);
      const toast = chat.toast("Deleted “set color to red”");
      await expect(toast).toContainText("forks of it are kept");
      await toast.getByRole("button", { name: "Undo" }).click();
      await expect(chat.sidebarChat("set color to red")).toBeVisible();
      await expect(page).toHaveURL(new RegExp(`/chat/${id}$`));
      await chat.expectUserMessages(["set color to red"]);
      expect((await page.request.get(`/api/sessions/${id}`)).status()).toBe(200);

      // Leaving the page while the offer is open sends the delete on the way out.
      await remove();
      await expect(chat.toast("Deleted “set color to red”")).toBeVisible();
      expect((await page.request.get(`/api/sessions/${id}`)).status()).toBe(200);
      await page.goto("about:blank");
      await expect.poll(async () => (await page.request.get(`/api/sessions/${id}`)).status()).toBe(404);
      await chat.open();
      await expect(chat.sidebarChat("set color to red")).toHaveCount(0);
    });
  });

  test.describe("on a phone", () => {
    test.use(PHONE);

    test("the header's controls are in its More menu, clear of the title; toasts sit below it; no Shift+Enter in the placeholder", async ({
      chat,
      page,
    }) => {
      await chat.open();
      await expect(chat.composer).toHaveAttribute("placeholder", "Message the agent…");
      await chat.sendMessage("set color to red");
      await chat.sendMessage("set color to blue");
      const header = page.locator("header").first();
      const more = header.getByRole("button", { name: "More", exact: true });
      await expect(more).toBeVisible();
      expect(await overlap(more, chat.heading)).toBe(false);
      expect((await more.boundingBox())!.height).toBeGreaterThanOrEqual(44);
      await expect(chat.heading).toHaveText("set color to red");
      expect(await chat.heading.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
      // The rewound-turns switch is one of its items, and works from there.
      const rewound = page.getByRole("menuitemcheckbox", { name: "Show rewound turns" });
      await chat.moreMenu("tap");
      await rewound.tap();
      await chat.moreMenu("tap");
      await expect(rewound).toBeChecked();
      await rewound.tap();
      await chat.moreMenu("tap");
      await expect(rewound).not.toBeChecked();
      await page.keyboard.press("Escape");

      await chat.userMessage("set color to blue").getByRole("button", { name: "Message actions" }).tap();
      await page.getByRole("menuitem", { name: "Rewind to here" }).tap();
      const toast = chat.toast(/Rewound 1 turn/);
      await expect(toast).toBeVisible();
      const bottom = (await header.boundingBox())!;
      await expect.poll(async () => (await toast.boundingBox())!.y).toBeGreaterThanOrEqual(bottom.y + bottom.height);
      await page.screenshot({ path: test.info().outputPath("phone-header.png") });
    });
  });
});
