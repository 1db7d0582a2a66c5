import type { Page } from "@playwright/test";
import type { ChatPage } from "./support/chat-page";
import { expect, test } from "./support/fixtures";

const map = (page: Page) => page.getByRole("dialog", { name: "Map" });
/** A turn of the map by its message (its accessible name starts with it, or with the version's name). */
const turn = (page: Page, text: string) => map(page).getByRole("button", { name: new RegExp(`^(.*: )?${text}, version`) });

async function openMap(page: Page) {
  await page.getByRole("button", { name: "Map" }).click();
  await expect(map(page)).toBeVisible();
}

/** Edits the user message `from` into `to` (a new version of that turn) and waits for the reply. */
async function edit(chat: ChatPage, from: string, to: string) {
  await chat.messageAction(from, "Edit & resend");
  await chat.page.getByRole("textbox", { name: "Edit message" }).fill(to);
  await chat.page.getByRole("button", { name: "Send edit" }).click();
  await chat.waitForTurnEnd();
}

test.describe("the map", () => {
  test("a click on a rewound turn shows that version, state and files included; Undo goes back", async ({ chat, page }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    await chat.sendMessage("save file notes.txt with content first");
    await edit(chat, "save file notes.txt with content first", "set color to blue");
    await chat.expectUserMessages(["set color to red", "set color to blue"]);
    await expect(chat.fileRow("notes.txt")).toHaveCount(0);

    await openMap(page);
    await expect(turn(page, "set color to blue")).toHaveAttribute("aria-current", "true");
    await expect(turn(page, "set color to blue")).toBeFocused();
    await expect(turn(page, "save file notes.txt with content first")).toHaveAccessibleName(/version 1 of 2, rewound$/);

    await turn(page, "save file notes.txt with content first").click();
    await expect(map(page)).toHaveCount(0);
    await chat.expectUserMessages(["set color to red", "save file notes.txt with content first"]);
    await expect(await chat.stateValue("color")).toContainText("red");
    await expect(chat.fileRow("notes.txt")).toHaveCount(1);
    await openMap(page);
    await expect(turn(page, "save file notes.txt with content first")).toHaveAttribute("aria-current", "true");
    await expect(turn(page, "set color to blue")).toHaveAccessibleName(/version 2 of 2, rewound$/);
    await page.keyboard.press("Escape");

    await chat.toast("Showing another version").getByRole("button", { name: "Undo" }).click();
    await expect(chat.toast("Back to the version before")).toBeVisible();
    await chat.expectUserMessages(["set color to red", "set color to blue"]);
    await expect(await chat.stateValue("color")).toContainText("blue");
    await expect(chat.fileRow("notes.txt")).toHaveCount(0);
    await openMap(page);
    await expect(turn(page, "set color to blue")).toHaveAttribute("aria-current", "true");
  });

  test("keyboard: arrows move between turns, Enter shows one; a name and a pin show in the map and in History", async ({ chat, page }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    await chat.sendMessage("set color to green");
    await edit(chat, "set color to green", "set color to blue");

    await openMap(page);
    await expect(turn(page, "set color to blue")).toBeFocused();
    await page.keyboard.press("ArrowLeft");
    await expect(turn(page, "set color to green")).toBeFocused();
    await page.keyboard.press("ArrowUp");
    await expect(turn(page, "set color to red")).toBeFocused();
    await page.keyboard.press("ArrowDown");
    await expect(turn(page, "set color to blue")).toBeFocused();
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("Enter");
    await expect(map(page)).toHaveCount(0);
    await chat.expectUserMessages(["set color to red", "set color to green"]);
    await expect(await chat.stateValue("color")).toContainText("green");

    await openMap(page);
    await expect(turn(page, "set color to green")).toBeFocused();
    const details = map(page).getByRole("region", { name: "Selected version" });
    await details.getByRole("textbox", { name: "Version name" }).fill("The green one");
    await details.getByRole("button", { name: "Save name" }).click();
    await expect(turn(page, "set color to green")).toHaveAccessibleName(/^The green one: set color to green, /);
    await details.getByRole("button", { name: "Pin" }).click();
    await expect(details.getByRole("button", { name: "Pin" })).toHaveAttribute("aria-pressed", "true");
    await expect(turn(page, "set color to green")).toHaveAccessibleName(/^The green one: set color to green, .*, pinned$/);

    await page.keyboard.press("Escape");
    await expect(map(page)).toHaveCount(0);
    await page.getByRole("button", { name: "History" }).click();
    const named = page.getByTestId("version").filter({ hasText: "The green one" });
    await expect(named.first()).toBeVisible();
    await expect(named.first().getByText("Pinned")).toBeVisible();
    await page.keyboard.press("Escape");

    await page.reload();
    await expect(chat.composer).toBeEditable();
    await openMap(page);
    await expect(turn(page, "set color to green")).toHaveAccessibleName(/^The green one: .*pinned$/);
  });

  test("forks are links to their chats, and a fork's map links back to its source", async ({ chat, page }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    await chat.sendMessage("set color to blue");
    const source = chat.sessionId();
    await chat.messageAction("set color to blue", "Fork chat from here");
    await expect(page).not.toHaveURL(new RegExp(source));
    await expect(chat.composer).toHaveValue("set color to blue");
    const fork = chat.sessionId();

    await page.getByRole("button", { name: "Map" }).click();
    await expect(turn(page, "set color to red")).toBeVisible();
    await map(page)
      .getByRole("link", { name: /^Forked from/ })
      .click();
    await expect(page).toHaveURL(new RegExp(`/chat/${source}$`));
    await expect(chat.composer).toBeEditable();
    await openMap(page);
    await expect(turn(page, "set color to blue")).toBeVisible();
    await map(page).getByRole("link", { name: /^Fork/ }).click();
    await expect(page).toHaveURL(new RegExp(`/chat/${fork}$`));
  });
});

test.describe("the map on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true });

  test("fills the screen; a tap shows that version", async ({ chat, page }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    await edit(chat, "set color to red", "set color to blue");
    await page.getByRole("button", { name: "Map" }).tap();
    const box = (await map(page).boundingBox())!;
    expect([box.x, box.y, box.width, box.height]).toEqual([0, 0, 390, 844]);
    await turn(page, "set color to red").tap();
    await expect(map(page)).toHaveCount(0);
    await chat.expectUserMessages(["set color to red"]);
  });
});
