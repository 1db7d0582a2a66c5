import type { Locator, Page } from "@playwright/test";
import { guestToken, type Instance, instance } from "./support/api-client";
import { expect, test } from "./support/fixtures";

const TURNS = 130;

/** A chat of `turns` demo-agent turns ("set turn to 1" …), sent over A2A `message/send` as an integrator would. */
async function longChat(api: Instance, turns: number): Promise<string> {
  let contextId: string | undefined;
  for (let i = 1; i <= turns; i++) {
    const message = { kind: "message", role: "user", messageId: crypto.randomUUID(), parts: [{ kind: "text", text: `set turn to ${i}` }] };
    const answer = (await api.rpc("message/send", { message: { ...message, ...(contextId ? { contextId } : {}) } })) as {
      result: { contextId: string; status: { state: string } };
    };
    expect(answer.result.status.state).toBe("completed");
    contextId = answer.result.contextId;
  }
  return contextId!;
}

/** The user message whose text is exactly `text` ("set turn to 1" is not "set turn to 10"). */
const userMessage = (page: Page, text: string): Locator =>
  page.getByTestId("user-message").filter({ has: page.getByText(text, { exact: true }) });

async function signIn(page: Page, baseURL: string, token: string) {
  await page.context().addCookies([{ name: "retrace_token", value: token, url: baseURL }]);
}

test.describe("long chats", () => {
  test("a long chat opens on its last turns, loads older ones while scrolling up with the view kept in place, and rewinds a turn loaded that way", async ({
    chat,
    page,
    baseURL,
  }) => {
    test.setTimeout(180_000);
    const token = await guestToken(baseURL!);
    const id = await longChat(instance(baseURL!, token), TURNS);
    await signIn(page, baseURL!, token);
    await chat.open(`/chat/${id}`);

    // The last page only, and only what is near the screen of it.
    await expect(userMessage(page, `set turn to ${TURNS}`)).toBeInViewport();
    await expect(await chat.stateValue("turn")).toContainText(String(TURNS));
    const turnsInDom = () => page.getByTestId("turn").count();
    expect(await turnsInDom()).toBeLessThan(20);
    await expect(page.getByRole("button", { name: "Jump to latest" })).toHaveCount(0);

    // At the top of the first page the next one loads above it, and what the reader sees stays put.
    const main = chat.conversation;
    const olderPage = (url: URL) => url.pathname.endsWith("/tasks") && url.searchParams.has("before");
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(olderPage, async (route) => {
      await held;
      await route.continue();
    });
    const loading = page.getByRole("status").filter({ hasText: "Loading earlier turns" });
    const firstOfLastPage = userMessage(page, `set turn to ${TURNS - 49}`);
    await main.evaluate((e) => e.scrollTo(0, 0));
    await expect(loading).toBeVisible();
    await expect(firstOfLastPage).toBeInViewport();
    await expect(page.getByRole("button", { name: "Jump to latest" })).toBeVisible();
    const before = (await firstOfLastPage.boundingBox())!.y;
    release();
    await expect(userMessage(page, `set turn to ${TURNS - 50}`)).toBeAttached();
    await expect(loading).toHaveCount(0);
    await page.waitForTimeout(300);
    expect(Math.abs((await firstOfLastPage.boundingBox())!.y - before)).toBeLessThan(2);
    await page.unroute(olderPage);

    // On to the very first turn.
    const first = userMessage(page, "set turn to 1");
    await expect(async () => {
      await main.evaluate((e) => e.scrollTo(0, 0));
      await expect(first).toBeInViewport({ timeout: 500 });
    }).toPass({ timeout: 30_000 });
    expect(await turnsInDom()).toBeLessThan(20);

    // Rewind a turn that scrolling loaded: the list, state, composer and toast, as on any turn.
    const fifth = userMessage(page, "set turn to 5");
    await fifth.hover();
    await fifth.getByRole("button", { name: "Message actions" }).click();
    await page.getByRole("menuitem", { name: "Rewind to here", exact: true }).click();
    await expect(page.getByTestId("user-message")).toHaveText(["set turn to 1", "set turn to 2", "set turn to 3", "set turn to 4"]);
    await expect(await chat.stateValue("turn")).toContainText("4");
    await expect(chat.composer).toHaveValue("set turn to 5");
    // The rewound turns, shown greyed a page at a time like the others, end with the last one. (The pointer
    // rests on the toast meanwhile, which keeps its Undo; the switch is worked from the keyboard.)
    const toast = chat.toast(`Rewound ${TURNS - 4} turns`);
    await toast.hover();
    const showRewound = page.getByRole("switch", { name: "Show rewound turns" });
    await showRewound.focus();
    await page.keyboard.press("Space");
    await expect(
      page.getByTestId("rewound-turn").filter({ has: page.getByText(`set turn to ${TURNS}`, { exact: true }) }),
    ).toBeInViewport();
    expect(await page.getByTestId("rewound-turn").count()).toBeLessThan(20);
    await page.keyboard.press("Space");
    await expect(page.getByTestId("rewound-turn")).toHaveCount(0);
    await toast.getByRole("button", { name: "Undo" }).click();
    await expect(chat.toast("Rewind undone")).toBeVisible();
    await expect(await chat.stateValue("turn")).toContainText(String(TURNS));
    await expect(userMessage(page, `set turn to ${TURNS}`)).toBeInViewport();

    await page.reload();
    await expect(userMessage(page, `set turn to ${TURNS}`)).toBeInViewport();
    expect(await turnsInDom()).toBeLessThan(20);
  });

  test("the sidebar lists chats a page at a time as it scrolls, with the DOM kept small", async ({ chat, page, baseURL }) => {
    const token = await guestToken(baseURL!);
    const api = instance(baseURL!, token);
    for (let i = 1; i <= 130; i++) expect((await api.json("POST", "/api/sessions", { name: `Chat number ${i}` })).status).toBe(201);
    await signIn(page, baseURL!, token);
    await chat.open("/");
    const chats = page.getByRole("navigation", { name: "Chats" });
    await expect(chats.getByRole("link", { name: "Chat number 130", exact: true })).toBeVisible();
    expect(await chats.getByRole("link").count()).toBeLessThan(60);

    const oldest = chats.getByRole("link", { name: "Chat number 1", exact: true });
    await expect(async () => {
      await chats.evaluate((e) => e.scrollBy(0, 5000));
      await expect(oldest).toBeInViewport({ timeout: 500 });
    }).toPass({ timeout: 20_000 });
    expect(await chats.getByRole("link").count()).toBeLessThan(60);
    await oldest.click();
    await expect(chat.heading).toHaveText("Chat number 1");
  });
});
