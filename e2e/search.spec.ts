import type { Locator, Page } from "@playwright/test";
import { guestToken, instance } from "./support/api-client";
import type { ChatPage } from "./support/chat-page";
import { expect, test } from "./support/fixtures";

const searchBox = (page: Page) => page.getByRole("searchbox", { name: "Search chats" });
const results = (page: Page) => page.getByRole("region", { name: "Search results" });
const hits = (page: Page) => results(page).getByRole("listitem");
const pager = (page: Page) => page.getByTestId("version-pager");

async function search(page: Page, text: string) {
  await searchBox(page).fill(text);
  await expect(results(page).getByRole("status")).not.toHaveText(/Searching|Type a word/);
}

/** Two turns, the second edited: "banana" is now only in the rewound version. */
async function editedChat(chat: ChatPage, page: Page) {
  await chat.open();
  await chat.sendMessage("set color to red");
  await chat.sendMessage("set color to banana");
  await chat.messageAction("set color to banana", "Edit & resend");
  await page.getByRole("textbox", { name: "Edit message" }).fill("set color to cherry");
  await page.getByRole("button", { name: "Send edit" }).click();
  await chat.waitForTurnEnd();
  await chat.expectUserMessages(["set color to red", "set color to cherry"]);
}

const shot = (page: Page, name: string) => page.screenshot({ path: test.info().outputPath(`${name}.png`) });
const marked = (hit: Locator) => hit.locator("mark");

test.describe("search", () => {
  test("a rewound hit opens the version that holds it, state included, with Undo; a current hit just opens its turn", async ({
    chat,
    page,
  }) => {
    await editedChat(chat, page);

    await search(page, "banana");
    await expect(results(page).getByRole("status")).toHaveText("No messages match.");
    // Rewound messages do match: the results say so, with the way to see them.
    await expect(results(page)).toContainText("Rewound messages match.");
    await results(page).getByRole("button", { name: "Include rewound messages" }).click();
    await expect(page.getByRole("switch", { name: "Include rewound messages" })).toBeChecked();
    await expect(hits(page)).toHaveCount(2); // the message and the agent's reply
    const mine = hits(page).filter({ hasText: "You:" });
    await expect(mine).toContainText("Rewound");
    await expect(marked(mine)).toHaveText(["banana"]);
    await shot(page, "search-rewound-desktop-light");

    await mine.getByRole("link").click();
    await chat.expectUserMessages(["set color to red", "set color to banana"]);
    await expect(pager(page)).toHaveText("1 / 2");
    await expect(await chat.stateValue("color")).toContainText("banana");
    const toast = chat.toast("Switched to the version with this message");
    await expect(toast).toBeVisible();
    // The results know what changed: the banana messages are in the current view now.
    await expect(hits(page).filter({ hasText: "Rewound" })).toHaveCount(0);

    await toast.getByRole("button", { name: "Undo" }).click();
    await chat.expectUserMessages(["set color to red", "set color to cherry"]);
    await expect(await chat.stateValue("color")).toContainText("cherry");

    await page.getByRole("switch", { name: "Include rewound messages" }).click();
    await search(page, "cherr");
    await expect(marked(hits(page).first())).toHaveText(["cherry"]);
    await hits(page).filter({ hasText: "You:" }).getByRole("link").click();
    await expect(chat.userMessage("set color to cherry")).toBeInViewport();
    await expect(pager(page)).toHaveText("2 / 2");
    await shot(page, "search-opened-desktop-light");
  });

  test("a hit deep in a long chat loads older turns until its turn is on screen; keyboard only", async ({ chat, page, baseURL }) => {
    test.setTimeout(120_000);
    const token = await guestToken(baseURL!);
    const api = instance(baseURL!, token);
    let contextId: string | undefined;
    for (let i = 1; i <= 56; i++) {
      const text = i === 1 ? "set quokka to 1" : `set turn to ${i}`;
      const message = { kind: "message", role: "user", messageId: crypto.randomUUID(), parts: [{ kind: "text", text }] };
      const answer = (await api.rpc("message/send", { message: { ...message, ...(contextId ? { contextId } : {}) } })) as {
        result: { contextId: string };
      };
      contextId = answer.result.contextId;
    }
    await page.context().addCookies([{ name: "retrace_token", value: token, url: baseURL! }]);
    await chat.open();

    await searchBox(page).focus();
    await page.keyboard.type("quokka");
    await expect(hits(page)).toHaveCount(2);
    await page.keyboard.press("ArrowDown");
    await expect(hits(page).first().getByRole("link")).toBeFocused();
    await page.keyboard.press("ArrowDown");
    await expect(hits(page).nth(1).getByRole("link")).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(new RegExp(`/chat/${contextId}$`));
    await expect(page.getByTestId("user-message").filter({ has: page.getByText("set quokka to 1", { exact: true }) })).toBeInViewport();

    await searchBox(page).focus();
    await page.keyboard.press("Escape");
    await expect(searchBox(page)).toHaveValue("");
    await expect(page.getByRole("navigation", { name: "Chats" })).toBeVisible();
  });

  test("only the user's own chats: another guest's words are never found; snippets are text", async ({ chat, otherChat, page }) => {
    await otherChat.open();
    await otherChat.sendMessage("set walrus to secret");
    await chat.open();
    await chat.sendMessage("set color to red");
    await search(page, "walrus");
    await expect(results(page).getByRole("status")).toHaveText("No messages match.");
    await expect(results(page)).not.toContainText("Rewound messages match");
    // A snippet is text: markup in a message shows as the characters it is made of.
    await chat.sendMessage('remember <b>narwhal</b> <img src=x onerror="document.title=1">');
    await search(page, "narwhal");
    await expect(hits(page).first()).toContainText("<b>narwhal</b> <img src=x");
    await expect(results(page).locator("b, img")).toHaveCount(0);
    await expect(marked(hits(page).first())).toHaveText(["narwhal"]);
    await search(page, "**");
    await expect(results(page).getByRole("status")).toHaveText("Type a word to search for.");
  });

  test("looks right in the dark on a desktop", async ({ chat, page }) => {
    await editedChat(chat, page);
    await chat.sendMessage("save file notes.txt with content a banana split for the colour test");
    await page.emulateMedia({ colorScheme: "dark" });
    await search(page, "banana");
    await page.getByRole("switch", { name: "Include rewound messages" }).click();
    await expect(hits(page)).toHaveCount(3);
    await shot(page, "search-desktop-dark");
  });
});

/** The first message edited, so its first version's turn opens at the very top of the chat. */
async function firstMessageEdited(chat: ChatPage, page: Page) {
  await chat.open();
  await chat.sendMessage("set color to banana");
  await chat.sendMessage("what is color?");
  await chat.messageAction("set color to banana", "Edit & resend");
  await page.getByRole("textbox", { name: "Edit message" }).fill("set color to cherry");
  await page.getByRole("button", { name: "Send edit" }).click();
  await chat.waitForTurnEnd();
  await chat.sendMessage("what is color?");
}

for (const [device, use] of [
  ["desktop", { viewport: { width: 1280, height: 800 } }],
  ["phone", { viewport: { width: 390, height: 844 }, hasTouch: true }],
] as const) {
  test.describe(`a rewound hit on a ${device}`, () => {
    test.use(use);
    test("opens with its message below the Switched toast, even at the top of the chat", async ({ chat, page }) => {
      await firstMessageEdited(chat, page);
      if (device === "phone") await page.getByRole("button", { name: "Open chats" }).tap();
      await search(page, "banana");
      await page.getByRole("switch", { name: "Include rewound messages" }).click();
      await hits(page).filter({ hasText: "You:" }).getByRole("link").click();
      const toast = chat.toast("Switched to the version with this message");
      await expect(toast).toBeVisible();
      const found = chat.userMessage("set color to banana");
      await expect(found).toBeInViewport();
      // Where both settle: the toast slides in, the list scrolls.
      await page.waitForTimeout(600);
      const [a, b] = [(await toast.boundingBox())!, (await found.boundingBox())!];
      expect(a.y + a.height <= b.y || b.y + b.height <= a.y).toBe(true);
      await shot(page, `search-switched-${device}`);
    });
  });
}

test.describe("search on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true });

  test("in the drawer, light and dark: touch-sized, and the drawer closes when a hit opens", async ({ chat, page }) => {
    await editedChat(chat, page);
    await chat.sendMessage("save file notes.txt with content a banana split for the colour test");
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.getByRole("button", { name: "Open chats" }).tap();
      const drawer = page.getByRole("dialog", { name: "Chats" });
      await search(page, "banana");
      await expect(hits(page)).toHaveCount(1);
      for (const target of [searchBox(page), drawer.getByRole("button", { name: "Clear search" }), hits(page).getByRole("link")]) {
        const box = (await target.boundingBox())!;
        expect(Math.min(box.width, box.height)).toBeGreaterThanOrEqual(44);
      }
      await shot(page, `search-phone-${scheme}`);
      await hits(page).getByRole("link").tap();
      await expect(drawer).toHaveCount(0);
      await expect(chat.userMessage("save file notes.txt")).toBeInViewport();
    }
  });
});
