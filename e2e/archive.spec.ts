import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { writeArchive } from "../bench/import-memory";
import { expect, test } from "./support/fixtures";

const SCREENS = "test-results/screens";

test.describe("export and import", () => {
  test("a chat exported as an archive comes back whole in another browser: its versions, state and files", async ({
    chat,
    otherChat,
    page,
  }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    await chat.sendMessage("save file notes.txt with content hello");
    await chat.sendMessage("set color to blue");
    await chat.messageAction("set color to blue", "Rewind to here");
    await expect(await chat.stateValue("color")).toContainText("red");
    await expect(chat.composer).toBeEditable();

    const archive = page.waitForEvent("download");
    await page.getByRole("button", { name: "Export", exact: true }).click();
    await page.getByRole("menuitem", { name: "Archive (JSON)" }).click();
    const archiveFile = (await (await archive).path()) as string;
    const markdown = page.waitForEvent("download");
    await page.getByRole("button", { name: "Export", exact: true }).click();
    await page.getByRole("menuitem", { name: "Markdown" }).click();
    const text = await readFile((await (await markdown).path()) as string, "utf8");
    expect(text).toContain("# set color to red");
    expect(text).toContain("### You\n\nsave file notes.txt with content hello");
    expect(text).not.toContain("set color to blue");

    await otherChat.open();
    const buffer = await readFile(archiveFile);
    await otherChat.page.getByLabel("Files to import").setInputFiles({ name: "chat.retrace.json", mimeType: "application/json", buffer });
    await expect(otherChat.toast("Imported 1 chat")).toBeVisible();
    await otherChat.sidebarChat("set color to red").click();
    await otherChat.expectUserMessages(["set color to red", "save file notes.txt with content hello"]);
    await expect(await otherChat.stateValue("color")).toContainText("red");
    await expect(otherChat.fileRow("notes.txt")).toBeVisible();
    // The rewound version came along: History restores it, state included.
    await otherChat.page.getByRole("button", { name: "History" }).click();
    const versions = otherChat.page.getByRole("dialog", { name: "History" }).getByTestId("version");
    await expect(versions).toHaveCount(2);
    await versions.nth(1).getByRole("button", { name: "Restore" }).click();
    await otherChat.expectUserMessages(["set color to red", "save file notes.txt with content hello", "set color to blue"]);
    await expect(await otherChat.stateValue("color")).toContainText("blue");
  });

  test("a large archive imports with a progress bar", async ({ chat, page }) => {
    const file = path.join(tmpdir(), `retrace-e2e-${crypto.randomUUID()}.json`);
    await writeArchive(file, 12);
    await chat.open();
    await page.getByLabel("Files to import").setInputFiles(file);
    const bar = page.getByRole("progressbar", { name: "Import progress" });
    await expect(bar).toBeVisible();
    await page.screenshot({ path: `${SCREENS}/import-progress.png` });
    await expect(chat.toast(/Imported \d+ chats/)).toBeVisible({ timeout: 60_000 });
    await expect(bar).toHaveCount(0);
    await expect(chat.sidebarChat("Chat 0")).toBeVisible();
  });

  test("a file that is no export is refused with a readable message; a wrong JSON file is told which file works", async ({
    chat,
    page,
  }) => {
    await chat.open();
    await page
      .getByLabel("Files to import")
      .setInputFiles({ name: "notes.json", mimeType: "application/json", buffer: Buffer.from("hello") });
    await expect(chat.toast(/not JSON nor a ZIP\. Import takes a Retrace archive, ChatGPT's conversations\.json/)).toBeVisible();
    // ChatGPT's export holds other JSON files beside conversations.json: picking one says which to pick.
    await page
      .getByLabel("Files to import")
      .setInputFiles({ name: "user.json", mimeType: "application/json", buffer: Buffer.from('{"id":"user-1","email":"a@example.com"}') });
    await expect(chat.toast(/This JSON is not a Retrace archive .*ChatGPT's conversations\.json .*export ZIP/)).toBeVisible();
  });

  test("imported chats are listed by their own dates, under their own day headings", async ({ chat, page }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    const day = 86_400;
    const now = Math.floor(Date.now() / 1000);
    /** A ChatGPT conversation last written `daysAgo` days ago. */
    const conversation = (title: string, daysAgo: number) => {
      const at = now - daysAgo * day;
      const message = (id: string, role: string, text: string, parent: string | null, children: string[]) => ({
        id,
        message: { id, author: { role }, create_time: at, content: { content_type: "text", parts: [text] }, metadata: {} },
        parent,
        children,
      });
      return {
        title,
        create_time: at,
        update_time: at,
        current_node: "a",
        mapping: { u: message("u", "user", `About ${title}`, null, ["a"]), a: message("a", "assistant", "Sure.", "u", []) },
      };
    };
    // The export's order (oldest first here) is not the list's.
    const file = [conversation("A year ago", 365), conversation("Yesterday's", 1), conversation("Last week's", 4)];
    await page
      .getByLabel("Files to import")
      .setInputFiles({ name: "conversations.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(file)) });
    await expect(chat.toast("Imported 3 chats")).toBeVisible();
    const list = page.getByRole("navigation", { name: "Chats" });
    await expect(list.getByRole("link", { name: "A year ago" })).toBeVisible();
    await expect(list.locator("h2, a")).toHaveText([
      "Today",
      "set color to red",
      "Yesterday",
      "Yesterday's",
      "Previous 7 days",
      "Last week's",
      "Older",
      "A year ago",
    ]);
    await page.screenshot({ path: `${SCREENS}/imported-by-date.png` });
  });
});

test("screens: Share, Export and Import on a phone and a desktop, light and dark", async ({ chat, page, browser, baseURL }) => {
  await chat.open();
  await chat.sendMessage("set color to red");
  const link = await (async () => {
    await page.getByRole("button", { name: "Share" }).click();
    const dialog = page.getByRole("dialog", { name: "Share this version" });
    await dialog.getByLabel("Include tool calls").check();
    await dialog.getByRole("button", { name: "Create link" }).click();
    return dialog.getByRole("textbox", { name: "Share link" }).inputValue();
  })();
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.screenshot({ path: `${SCREENS}/share-desktop-${scheme}.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${SCREENS}/share-phone-${scheme}.png` });
  }
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog", { name: "Share this version" })).toHaveCount(0);
  // On a phone the header's controls are in its More menu, on screen.
  await chat.openFromHeader("Export");
  for (const name of ["Archive (JSON)", "Markdown"]) {
    const box = await page.getByRole("menuitem", { name }).boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390, name).toBe(true);
  }
  await page.screenshot({ path: `${SCREENS}/export-phone-dark.png` });
  await page.keyboard.press("Escape");
  const stranger = await browser.newContext({ baseURL, viewport: { width: 390, height: 844 }, colorScheme: "dark" });
  const viewer = await stranger.newPage();
  await viewer.goto(link);
  await expect(viewer.getByText("update_state")).toBeVisible();
  await viewer.screenshot({ path: `${SCREENS}/shared-phone-dark.png`, fullPage: true });
  await stranger.close();
});
