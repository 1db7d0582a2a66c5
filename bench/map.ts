/** The map in Chromium (bench/browser.bench.ts): opening it on a chat, and a click on a turn until that version shows. */
import { expect, type Page } from "@playwright/test";

declare global {
  interface Window {
    __map: { clickAt?: number; doneAt?: number };
  }
}

/** Notes the time of the next click, in the page. */
const armClick = (page: Page) =>
  page.evaluate(() => {
    window.__map = {};
    document.addEventListener("click", () => (window.__map.clickAt = performance.now()), { capture: true, once: true });
  });

/** The milliseconds from the click to the frame where the page's `done` first held. */
const sinceClick = (page: Page) => page.evaluate(() => (window.__map.doneAt as number) - (window.__map.clickAt as number));

/** From the click on Map until the turn shown now is drawn in the map (its tree read anew, as every opening does). */
async function timeOpening(page: Page) {
  await armClick(page);
  await page.getByRole("button", { name: "Map" }).click();
  await page.waitForFunction(
    () => {
      const shown = document.querySelector('[role="dialog"] [data-map-node][aria-current="true"]');
      if (!shown || shown.getBoundingClientRect().height === 0) return false;
      window.__map.doneAt = performance.now();
      return true;
    },
    undefined,
    { polling: "raf" },
  );
  return sinceClick(page);
}

/** The map's first opening on a freshly loaded chat (its code loaded while the page was idle, never run yet). */
export async function openMap(page: Page, chatId: string) {
  await page.goto(`/chat/${chatId}`);
  await expect(page.getByRole("textbox", { name: "Message" })).toBeEditable();
  await page.waitForLoadState("networkidle");
  return timeOpening(page);
}

/** Closes the map and opens it again, on the same page. */
export async function reopenMap(page: Page) {
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog", { name: "Map" })).toHaveCount(0);
  return timeOpening(page);
}

/** Walks the map with the arrow keys, as a person would, up from the turn shown now to the turn whose message is `text`. */
export async function walkUpTo(page: Page, text: string) {
  for (let i = 0; i < 500; i++) {
    const name = await page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? "");
    if (name.startsWith(`${text}, version`)) return;
    await page.keyboard.press("ArrowUp");
  }
  throw new Error(`no turn "${text}" above the one shown`);
}

/**
 * From a click on the map's turn whose message is `text` (which closes the map) until the chat's last user
 * message is that turn's (or, given `leaving`, is no longer `leaving`: the branch goes on below the turn);
 * then opens the map again.
 */
export async function showVersion(page: Page, text: string, leaving?: string) {
  await armClick(page);
  await page
    .getByRole("dialog", { name: "Map" })
    .getByRole("button", { name: new RegExp(`^${text}, version`) })
    .click();
  await page.waitForFunction(
    ([wanted, left]) => {
      const last = [...document.querySelectorAll('[data-testid="user-message"]')].at(-1)?.firstElementChild?.textContent;
      if (left ? last === left : last !== wanted) return false;
      window.__map.doneAt = performance.now();
      return true;
    },
    [text, leaving ?? ""] as const,
    { polling: "raf" },
  );
  const took = await sinceClick(page);
  await expect(page.getByRole("dialog", { name: "Map" })).toHaveCount(0);
  await page.getByRole("button", { name: "Map" }).click();
  await expect(page.getByRole("dialog", { name: "Map" }).locator('[data-map-node][aria-current="true"]')).toBeFocused();
  return took;
}
