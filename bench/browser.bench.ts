import { writeFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { middle } from "./measure";

const RUNS = 5;

declare global {
  interface Window {
    __bench: { visibleAt?: number; clickAt?: number; updatedAt?: number };
  }
}

test("a 1,000-turn chat: time to a visible list, and from Rewind to here to the updated list", async ({ page, context, baseURL }) => {
  await context.addCookies([{ name: "retrace_token", value: process.env.BENCH_TOKEN!, url: baseURL! }]);
  const users = page.getByTestId("user-message");
  const composer = page.getByRole("textbox", { name: "Message" });
  const visible: number[] = [];
  const interactive: number[] = [];
  const rewind: number[] = [];

  for (let i = 0; i < RUNS; i++) {
    await page.goto(`/chat/${process.env.BENCH_CHAT}`, { waitUntil: "commit" });
    // Measured in the page, from navigation start, at the first frame where the last message has a box.
    await page.waitForFunction(
      () => {
        const last = [...document.querySelectorAll('[data-testid="user-message"]')].at(-1);
        if (!last || last.getBoundingClientRect().height === 0) return false;
        window.__bench = { visibleAt: performance.now() };
        return true;
      },
      undefined,
      { polling: "raf" },
    );
    visible.push(await page.evaluate(() => window.__bench.visibleAt!));
    await expect(composer).toBeEnabled();
    interactive.push(await page.evaluate(() => performance.now()));

    const count = await users.count();
    const target = users.nth(count - 2);
    await target.hover();
    await target.getByRole("button", { name: "Message actions" }).click();
    // The list is updated when the rewound turn's element leaves the DOM (the list is windowed, so its length may not change).
    const element = await target.elementHandle();
    await page.evaluate((el) => {
      document.addEventListener("click", () => (window.__bench.clickAt = performance.now()), { capture: true, once: true });
      new MutationObserver((_, observer) => {
        if (!el!.isConnected) {
          window.__bench.updatedAt = performance.now();
          observer.disconnect();
        }
      }).observe(document.body, { childList: true, subtree: true });
    }, element);
    await page.getByRole("menuitem", { name: "Rewind to here" }).click();
    await page.waitForFunction(() => window.__bench.updatedAt !== undefined);
    rewind.push(await page.evaluate(() => window.__bench.updatedAt! - window.__bench.clickAt!));
    await page.locator("[data-sonner-toast]").getByRole("button", { name: "Undo" }).click();
    await expect(page.locator("[data-sonner-toast]").filter({ hasText: "Rewind undone" })).toBeVisible();
  }
  const result = { visible: middle(visible), interactive: middle(interactive), rewind: middle(rewind) };
  console.log("browser medians (ms):", result);
  writeFileSync(process.env.BENCH_OUT!, JSON.stringify(result));
});
