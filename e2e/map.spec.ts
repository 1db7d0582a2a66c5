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

/** Two versions of the first turn (red, then blue), each followed by "what is color?": the map's two such turns differ only by their answers. */
async function twoAnswers(chat: ChatPage) {
  await chat.open();
  await chat.sendMessage("set color to red");
  await chat.sendMessage("what is color?");
  await edit(chat, "set color to red", "set color to blue");
  await chat.sendMessage("what is color?");
  await chat.expectUserMessages(["set color to blue", "what is color?"]);
}

/** The font size (px) a node's smallest text shows at: its CSS size times the map's zoom. */
const shownTextSize = (node: import("@playwright/test").Locator) =>
  node.evaluate((button) => {
    const viewport = button.closest(".react-flow__viewport") as HTMLElement;
    const zoom = new DOMMatrix(getComputedStyle(viewport).transform).a;
    const sizes = [button, ...button.querySelectorAll("*")].map((e) => Number.parseFloat(getComputedStyle(e).fontSize));
    return Math.min(...sizes) * zoom;
  });

const overlaps = (a: { x: number; y: number; width: number; height: number }, b: typeof a) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

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

  test("each turn shows the first words of its answer, so versions with the same question are told apart", async ({ chat, page }) => {
    await twoAnswers(chat);
    await openMap(page);
    const asked = turn(page, "what is color\\?");
    await expect(asked).toHaveCount(2);
    await expect(asked.filter({ hasText: "color is red" })).toHaveCount(1);
    await expect(asked.filter({ hasText: "color is blue" })).toHaveCount(1);
    await expect(asked.filter({ hasText: "color is blue" })).toHaveAccessibleDescription("color is blue.");
    await expect(turn(page, "set color to red")).toContainText("Done — color is now red.");
    await page.screenshot({ path: test.info().outputPath("map-answers-desktop.png") });
  });

  test("a rewound version is named and pinned with the pointer alone: its tag selects it, the chat stays as it is", async ({
    chat,
    page,
  }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    await edit(chat, "set color to red", "set color to blue");
    await openMap(page);
    await map(page).getByRole("button", { name: "Name or pin: set color to red" }).click();
    const details = map(page).getByRole("region", { name: "Selected version" });
    await expect(details).toContainText("set color to red");
    await expect(details.getByRole("textbox", { name: "Version name" })).toBeFocused();
    await details.getByRole("textbox", { name: "Version name" }).fill("The red one");
    await details.getByRole("button", { name: "Save name" }).click();
    await details.getByRole("button", { name: "Pin" }).click();
    await expect(turn(page, "set color to red")).toHaveAccessibleName(/^The red one: set color to red, version 1 of 2, rewound, pinned$/);
    await expect(turn(page, "set color to blue")).toHaveAttribute("aria-current", "true");
    await page.keyboard.press("Escape");
    await chat.expectUserMessages(["set color to blue"]);
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
    await chat.openFromHeader("Map", "tap");
    const box = (await map(page).boundingBox())!;
    expect([box.x, box.y, box.width, box.height]).toEqual([0, 0, 390, 844]);
    await turn(page, "set color to red").tap();
    await expect(map(page)).toHaveCount(0);
    await chat.expectUserMessages(["set color to red"]);
  });

  test("opens on the branch around the turn shown now, readable, with toasts off it; a version is named by tapping", async ({
    chat,
    page,
  }) => {
    // Two versions of the first turn, side by side: too wide for a phone at a readable size.
    await chat.open();
    await chat.sendMessage("set color to red");
    await edit(chat, "set color to red", "set color to blue");
    await chat.sendMessage("what is color?");
    // An Undo toast on screen as the map opens.
    await chat.messageAction("what is color?", "Rewind to here");
    const toast = chat.toast(/Rewound 1 turn/);
    await expect(toast).toBeVisible();
    await chat.openFromHeader("Map", "tap");
    const shown = map(page).locator('[aria-current="true"]');
    await expect(shown).toBeVisible();
    const canvas = (await map(page).locator(".react-flow").boundingBox())!;
    // The turn shown now and what led to it are in view, their text at least 11 px.
    for (const node of [shown, turn(page, "set color to blue")]) {
      const box = (await node.boundingBox())!;
      expect([
        box.x >= canvas.x,
        box.y >= canvas.y,
        box.x + box.width <= canvas.x + canvas.width,
        box.y + box.height <= canvas.y + canvas.height,
      ]).toEqual([true, true, true, true]);
      expect(await shownTextSize(node)).toBeGreaterThanOrEqual(11);
    }
    // The toast waits at the foot of the map: not over its title, Close, the branch or the selected version
    // (where it settles: it slides there from the top as the map opens).
    await expect(toast).toBeVisible();
    for (const part of [
      map(page).getByRole("heading", { name: "Map" }),
      map(page).getByRole("button", { name: "Close" }),
      shown,
      turn(page, "set color to blue"),
      map(page).getByRole("region", { name: "Selected version" }),
    ]) {
      await expect.poll(async () => overlaps((await toast.boundingBox())!, (await part.boundingBox())!)).toBe(false);
    }
    await page.screenshot({ path: test.info().outputPath("map-phone.png") });

    // Naming a rewound version by tapping its tag.
    await map(page).getByRole("button", { name: "Name or pin: set color to red" }).tap();
    const details = map(page).getByRole("region", { name: "Selected version" });
    await expect(details).toContainText("set color to red");
    await details.getByRole("textbox", { name: "Version name" }).fill("Red");
    await details.getByRole("button", { name: "Save name" }).tap();
    await expect(turn(page, "set color to red")).toHaveAccessibleName(/^Red: set color to red, version 1 of 2, rewound$/);
    await page.screenshot({ path: test.info().outputPath("map-phone-named.png") });
  });
});
