import type { Locator } from "@playwright/test";
import { fakeModel } from "./support/fake-openai-client";
import { expect, test } from "./support/fixtures";

// A phone: no hover, touch input, a narrow screen.
test.use({ viewport: { width: 390, height: 844 }, hasTouch: true });

/** How opaque an element really is: its own opacity times every ancestor's. */
const shownOpacity = (locator: Locator) =>
  locator.evaluate((element) => {
    let opacity = 1;
    for (let e: Element | null = element; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
    return opacity;
  });

async function expectTouchTarget(locator: Locator) {
  await expect(locator).toBeVisible();
  await expect.poll(() => shownOpacity(locator)).toBe(1);
  const box = (await locator.boundingBox())!;
  expect(box.width).toBeGreaterThanOrEqual(44);
  expect(box.height).toBeGreaterThanOrEqual(44);
}

test.describe("on a phone", () => {
  test("the state panel is a sheet: Close, Escape, a tap outside and following a link close it; focus stays inside", async ({
    chat,
    page,
  }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    const id = chat.sessionId();
    // The header's controls are in its "More" menu on a phone; focus goes back to that menu's button.
    const opener = page.getByRole("button", { name: "More", exact: true });
    const open = () => chat.openFromHeader("State", "tap");
    const sheet = page.getByRole("dialog", { name: "State and files" });

    await open();
    await expect(sheet.getByTestId("state-color")).toContainText("red");
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press("Tab");
      expect(await sheet.evaluate((element) => element.contains(document.activeElement))).toBe(true);
    }
    await sheet.getByRole("button", { name: "Close" }).tap();
    await expect(sheet).toHaveCount(0);
    await expect(opener).toBeFocused();

    await open();
    await expect(sheet).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(sheet).toHaveCount(0);

    await open();
    await expect(sheet).toBeVisible();
    await page.touchscreen.tap(20, 420);
    await expect(sheet).toHaveCount(0);

    const fork = await (await page.request.post(`/api/sessions/${id}/fork`, { data: {} })).json();
    await page.reload();
    await expect(chat.composer).toBeEditable();
    await open();
    await sheet.getByRole("link", { name: fork.data.name }).tap();
    await expect(page).toHaveURL(new RegExp(`/chat/${fork.data.id}$`));
    await expect(sheet).toHaveCount(0);
  });

  test("message actions show without hover, with targets of at least 44 px, and work by tapping", async ({ chat, page }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    await chat.sendMessage("set color to blue");
    const message = chat.userMessage("set color to blue");
    await expectTouchTarget(message.getByRole("button", { name: "Message actions" }));
    await expectTouchTarget(message.getByRole("button", { name: "Copy" }));
    await expectTouchTarget(chat.agentMessages().last().getByRole("button", { name: "Message actions" }));

    await message.getByRole("button", { name: "Message actions" }).tap();
    const rewind = page.getByRole("menuitem", { name: "Rewind to here", exact: true });
    expect((await rewind.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await rewind.tap();
    await chat.expectUserMessages(["set color to red"]);
    await expect(chat.composer).toHaveValue("set color to blue");
    // The Undo toast never covers the composer, whose text the rewind just put back.
    const toast = chat.toast(/Rewound 1 turn/);
    await expect(toast).toBeVisible();
    const [a, b] = [(await toast.boundingBox())!, (await chat.composer.boundingBox())!];
    expect(a.y + a.height <= b.y || b.y + b.height <= a.y).toBe(true);
  });

  for (const width of [320, 360, 390]) {
    test(`at ${width} px every header control is on screen and labelled, through the header's More menu`, async ({ chat, page }) => {
      await page.setViewportSize({ width, height: 844 });
      await chat.open();
      await chat.sendMessage("set color to red");
      await chat.sendMessage("set color to blue");
      const header = page.locator("header").first();
      expect(await header.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
      const more = header.getByRole("button", { name: "More", exact: true });
      await expectTouchTarget(more);
      await expect(more).toHaveText("More");
      for (const control of [chat.heading, more]) {
        const box = (await control.boundingBox())!;
        expect([box.x >= 0, box.x + box.width <= width]).toEqual([true, true]);
      }
      await chat.moreMenu("tap");
      const menu = page.getByRole("menu");
      const items = [
        menu.getByRole("menuitemcheckbox", { name: "Show rewound turns" }),
        ...["Map", "History", "Share", "Export", "State and files"].map((name) => menu.getByRole("menuitem", { name, exact: true })),
      ];
      for (const item of items) {
        await expect(item).toBeVisible();
        const box = (await item.boundingBox())!;
        expect([box.x >= 0, box.x + box.width <= width, box.height >= 44]).toEqual([true, true, true]);
      }
      await page.screenshot({ path: test.info().outputPath(`header-menu-${width}.png`) });
      // Each does what its button does on a wider screen.
      await items[0].tap();
      await expect(menu).toHaveCount(0);
      await chat.messageAction("set color to blue", "Rewind to here");
      await expect(chat.rewindDividers()).toHaveCount(1);
      await chat.moreMenu("tap");
      await expect(page.getByRole("menuitemcheckbox", { name: "Show rewound turns" })).toHaveAttribute("aria-checked", "true");
      await page.keyboard.press("Escape");
      for (const [name, dialog] of [
        ["Map", "Map"],
        ["History", "History"],
        ["Share", "Share this version"],
        ["State", "State and files"],
      ] as const) {
        await chat.openFromHeader(name, "tap");
        await expect(page.getByRole("dialog", { name: dialog })).toBeVisible();
        if (name === "Map") await page.screenshot({ path: test.info().outputPath(`map-${width}.png`) });
        await page.keyboard.press("Escape");
        await expect(page.getByRole("dialog", { name: dialog })).toHaveCount(0);
        await expect(more).toBeFocused();
      }
      await chat.moreMenu("tap");
      await page.getByRole("menuitem", { name: "Export", exact: true }).tap();
      await expect(page.getByRole("menuitem", { name: "Markdown" })).toBeVisible();
      const download = page.waitForEvent("download");
      await page.getByRole("menuitem", { name: "Markdown" }).tap();
      expect((await download).suggestedFilename()).toMatch(/\.md$/);
    });
  }

  test("a slow upward drag while a reply streams stops following at once: the view stays where the finger left it", async ({
    chat,
    page,
  }) => {
    await fakeModel.reset(page.request);
    await chat.open();
    await chat.chooseAgent("assistant");
    await chat.sendMessage("hello model");
    await chat.composer.fill("slow please");
    await chat.send.click();
    const main = chat.conversation;
    const overflow = () => main.evaluate((e) => e.scrollHeight - e.clientHeight);
    const fromBottom = () => main.evaluate((e) => e.scrollHeight - e.clientHeight - e.scrollTop);
    const words = async () => Number((await chat.agentMessages().last().textContent())?.match(/word(\d+)(?!.*word\d)/s)?.[1] ?? -1);
    await expect.poll(overflow, { timeout: 15_000 }).toBeGreaterThan(400);
    expect(await fromBottom()).toBeLessThanOrEqual(24);

    // A finger dragging the list down by 80 px over two seconds, as a person reading back slowly does.
    const box = (await main.boundingBox())!;
    const cdp = await page.context().newCDPSession(page);
    const x = Math.round(box.x + box.width / 2);
    let y = Math.round(box.y + box.height / 2);
    await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [{ x, y }] });
    for (let i = 0; i < 40; i++) {
      y += 2;
      await cdp.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: [{ x, y }] });
      await page.waitForTimeout(50);
    }
    await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
    const jump = page.getByRole("button", { name: "Jump to latest" });
    await expect(jump).toBeVisible();
    const readingAt = await main.evaluate((e) => e.scrollTop);
    const seen = await words();
    await expect.poll(words).toBeGreaterThan(seen + 8);
    expect(await main.evaluate((e) => e.scrollTop)).toBe(readingAt);
    expect(await fromBottom()).toBeGreaterThan(60);

    await jump.tap();
    await expect(jump).toHaveCount(0);
    const now = await words();
    await expect.poll(words).toBeGreaterThan(now + 5);
    expect(await fromBottom()).toBeLessThanOrEqual(24);
    // The reply (200 words, 20 s) may end meanwhile on a loaded machine: wait for its end rather than press Stop.
    await chat.waitForTurnEnd();
  });

  test("scrolling up while a long reply streams stays put; Jump to latest follows it again", async ({ chat, page }) => {
    await fakeModel.reset(page.request);
    await chat.open();
    await chat.chooseAgent("assistant");
    await chat.sendMessage("hello model");
    await chat.composer.fill("slow please");
    await chat.send.click();
    const main = chat.conversation;
    const overflow = () => main.evaluate((e) => e.scrollHeight - e.clientHeight);
    const fromBottom = () => main.evaluate((e) => e.scrollHeight - e.clientHeight - e.scrollTop);
    const words = async () => Number((await chat.agentMessages().last().textContent())?.match(/word(\d+)(?!.*word\d)/s)?.[1] ?? -1);
    // Following: as the reply grows past the screen, the view stays at its end.
    await expect.poll(overflow, { timeout: 15_000 }).toBeGreaterThan(400);
    expect(await fromBottom()).toBeLessThanOrEqual(24);

    await main.hover();
    await page.mouse.wheel(0, -300);
    const jump = page.getByRole("button", { name: "Jump to latest" });
    await expect(jump).toBeVisible();
    await expect.poll(() => main.evaluate((e) => e.scrollTop)).toBeLessThan(await overflow());
    await page.waitForTimeout(300);
    const readingAt = await main.evaluate((e) => e.scrollTop);
    const seen = await words();
    await expect.poll(words).toBeGreaterThan(seen + 8);
    expect(await main.evaluate((e) => e.scrollTop)).toBe(readingAt);

    await jump.tap();
    await expect(jump).toHaveCount(0);
    const now = await words();
    await expect.poll(words).toBeGreaterThan(now + 5);
    expect(await fromBottom()).toBeLessThanOrEqual(24);
    await chat.stop.tap();
    await chat.waitForTurnEnd();
  });
});
