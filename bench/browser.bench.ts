import { writeFileSync } from "node:fs";
import { expect, type Page, test } from "@playwright/test";
import { openMap, reopenMap, showVersion, walkUpTo } from "./map";
import { middle } from "./measure";

const RUNS = Number(process.env.BENCH_BROWSER_RUNS ?? 5);
/** `npm run bench -- --map` (bench/map-figures.ts): only the map, every timing kept. */
const MAP_ONLY = process.env.BENCH_MAP_ONLY === "1";
/** Size label → chat id, from bench/run.ts. */
const CHATS = JSON.parse(process.env.BENCH_CHATS ?? "{}") as Record<string, string>;

declare global {
  interface Window {
    __bench: { visibleAt?: number; clickAt?: number; updatedAt?: number; worstFrame?: number; frames?: boolean };
  }
}

/** From navigation start to the first frame where the newest user message has a box (measured in the page). */
async function openChat(page: Page, chatId: string) {
  await page.goto(`/chat/${chatId}`, { waitUntil: "commit" });
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
  return page.evaluate(() => window.__bench.visibleAt as number);
}

/** From the click on "Rewind to here" (second newest turn) until that turn's element leaves the page; then Undo. */
async function rewindClick(page: Page) {
  const users = page.getByTestId("user-message");
  const target = users.nth((await users.count()) - 2);
  await target.hover();
  await target.getByRole("button", { name: "Message actions" }).click();
  const element = await target.elementHandle();
  await page.evaluate((el) => {
    document.addEventListener("click", () => (window.__bench.clickAt = performance.now()), { capture: true, once: true });
    new MutationObserver((_, observer) => {
      if (!el?.isConnected) {
        window.__bench.updatedAt = performance.now();
        observer.disconnect();
      }
    }).observe(document.body, { childList: true, subtree: true });
  }, element);
  await page.getByRole("menuitem", { name: "Rewind to here" }).click();
  await page.waitForFunction(() => window.__bench.updatedAt !== undefined);
  const took = await page.evaluate(() => (window.__bench.updatedAt as number) - (window.__bench.clickAt as number));
  await page.locator("[data-sonner-toast]").getByRole("button", { name: "Undo" }).click();
  await expect(page.locator("[data-sonner-toast]").filter({ hasText: "Rewind undone" })).toBeVisible();
  return took;
}

/**
 * Scrolls up through `pages` older pages; the longest gap between two animation frames meanwhile. It starts
 * once the page has settled (hydration and link prefetches are page load, not scrolling), with the pointer
 * over the list rather than on a message, which Playwright would scroll into view.
 */
async function scrollUp(page: Page, pages: number) {
  await page.waitForLoadState("networkidle");
  await page.locator("main").hover();
  await page.evaluate(() => {
    window.__bench.worstFrame = 0;
    window.__bench.frames = true;
    let last = performance.now();
    const tick = (now: number) => {
      window.__bench.worstFrame = Math.max(window.__bench.worstFrame ?? 0, now - last);
      last = now;
      if (window.__bench.frames) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  for (let i = 0; i < pages * 10; i++) {
    await page.mouse.wheel(0, -1200);
    await page.waitForTimeout(60);
  }
  return page.evaluate(() => {
    window.__bench.frames = false;
    return window.__bench.worstFrame as number;
  });
}

/**
 * The map of a chat (bench/fixtures.ts: its last turn of 100 was edited): its first opening on a freshly loaded
 * page, opening it again, and a click on that turn's first version until the chat shows it; then back.
 */
async function mapFigures(page: Page, chatId: string, size: string) {
  const turns = size.endsWith("k") ? Number(size.slice(0, -1)) * 1000 : Number(size);
  const original = `message ${turns - 1}`;
  const first: number[] = [];
  const again: number[] = [];
  const click: number[] = [];
  for (let i = 0; i < RUNS; i++) first.push(await openMap(page, chatId));
  for (let i = 0; i < RUNS; i++) again.push(await reopenMap(page));
  for (let i = 0; i < RUNS; i++) {
    await walkUpTo(page, `${original}, edited`);
    click.push(await showVersion(page, original));
    await showVersion(page, `${original}, edited`, original);
  }
  return { first, again, click };
}

test("chats of each size: time to a visible list, rewind click → updated list, scrolling up, DOM size, the map", async ({
  page,
  context,
  baseURL,
}) => {
  await context.addCookies([{ name: "retrace_token", value: process.env.BENCH_TOKEN as string, url: baseURL as string }]);
  const results: Record<string, Record<string, number>> = {};
  const samples: Record<string, Record<string, number[]>> = {};
  for (const [size, chatId] of Object.entries(CHATS)) {
    if (MAP_ONLY) {
      samples[size] = await mapFigures(page, chatId, size);
      console.log(`map ${size}:`, samples[size]);
      continue;
    }
    const visible: number[] = [];
    const rewind: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      visible.push(await openChat(page, chatId));
      await expect(page.getByRole("textbox", { name: "Message" })).toBeEditable();
      rewind.push(await rewindClick(page));
    }
    await openChat(page, chatId);
    const elements = await page.evaluate(() => document.querySelectorAll("*").length);
    const worstFrame = await scrollUp(page, 3);
    const map = await mapFigures(page, chatId, size);
    const [mapFirstOpen, mapOpen, mapClick] = [middle(map.first), middle(map.again), middle(map.click)];
    results[size] = { visible: middle(visible), rewind: middle(rewind), worstFrame, elements, mapFirstOpen, mapOpen, mapClick };
    console.log(`browser ${size}:`, results[size]);
  }
  writeFileSync(process.env.BENCH_OUT as string, JSON.stringify(MAP_ONLY ? samples : results));
});
