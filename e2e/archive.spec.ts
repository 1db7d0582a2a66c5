import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { writeArchive } from "../bench/import-memory";
import { device, person, signUpWithEmail } from "./support/accounts";
import { guestToken, instance } from "./support/api-client";
import { expect, test } from "./support/fixtures";
import { INSTANCE_A, INSTANCE_B } from "./support/instances";

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

test.describe("share links", () => {
  async function share(page: import("@playwright/test").Page, options: string[] = []) {
    await page.getByRole("button", { name: "Share" }).click();
    const dialog = page.getByRole("dialog", { name: "Share this version" });
    for (const option of options) await dialog.getByLabel(option).check();
    await dialog.getByRole("button", { name: "Create link" }).click();
    const link = await dialog.getByRole("textbox", { name: "Share link" }).inputValue();
    expect(new URL(link).pathname).toMatch(/^\/s\/[A-Za-z0-9_-]{43}$/);
    return { dialog, link };
  }

  test("a link shows only the chosen version to a stranger, and is gone once revoked", async ({ chat, page, browser, baseURL }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    await chat.sendMessage("remember the word swordfish");
    await chat.messageAction("remember the word swordfish", "Rewind to here");
    await expect(chat.composer).toBeEditable();
    await chat.sendMessage("recap");
    const { dialog, link } = await share(page);
    await page.screenshot({ path: `${SCREENS}/share-dialog.png` });
    await dialog.getByRole("button", { name: "Close" }).click();
    // The chat goes on; the link keeps the version it was made from.
    await chat.sendMessage("set color to green");

    const stranger = await browser.newContext({ baseURL });
    const viewer = await stranger.newPage();
    const response = await viewer.goto(link);
    expect(response?.status()).toBe(200);
    expect(response?.headers()["x-robots-tag"]).toContain("noindex");
    await expect(viewer.locator('meta[name="robots"]')).toHaveAttribute("content", /noindex/);
    const shown = viewer.getByRole("list", { name: "Shared conversation" });
    await expect(shown.getByTestId("user-message")).toHaveText(["set color to red", "recap"]);
    await expect(viewer.getByText("swordfish")).toHaveCount(0);
    await expect(viewer.getByText("set color to green")).toHaveCount(0);
    // No tool calls unless the sharer said so: not on screen, nor anywhere in what the page sent.
    await expect(viewer.getByText("update_state")).toHaveCount(0);
    expect(await viewer.content()).not.toContain("update_state");
    expect(await viewer.content()).not.toContain("swordfish");
    await expect(viewer.getByText("Sign in to Retrace to continue")).toBeVisible();
    await viewer.screenshot({ path: `${SCREENS}/shared-page.png`, fullPage: true });

    await page.getByRole("button", { name: "Share" }).click();
    await page.getByRole("dialog", { name: "Share this version" }).getByRole("button", { name: "Revoke" }).click();
    // Revoking asks first; keeping the link changes nothing.
    const confirm = page.getByRole("dialog", { name: "Revoke this link?" });
    await expect(confirm).toContainText("Link not found");
    await page.screenshot({ path: `${SCREENS}/share-revoke-confirm.png` });
    await confirm.getByRole("button", { name: "Keep link" }).click();
    await expect(confirm).toHaveCount(0);
    await expect(page.getByRole("dialog", { name: "Share this version" }).getByRole("button", { name: "Revoke" })).toBeFocused();
    await expect(page.getByTestId("share-link")).toHaveCount(1);
    expect((await viewer.goto(link))?.status()).toBe(200);
    await page.getByRole("dialog", { name: "Share this version" }).getByRole("button", { name: "Revoke" }).click();
    await confirm.getByRole("button", { name: "Revoke link" }).click();
    await expect(page.getByTestId("share-link")).toHaveCount(0);
    await expect(chat.toast("Link revoked")).toBeVisible();
    // A revoked link is a 404 with the app's own page, and a way into the app.
    expect((await viewer.goto(link))?.status()).toBe(404);
    await expect(viewer.getByRole("heading", { name: "Link not found" })).toBeVisible();
    await expect(viewer.getByText("Its owner revoked this link, or it never existed.")).toBeVisible();
    await viewer.screenshot({ path: `${SCREENS}/shared-link-not-found.png` });
    await viewer.getByRole("link", { name: "Start a chat" }).click();
    await expect(viewer.getByRole("textbox", { name: "Message" })).toBeEditable();
    await stranger.close();
  });

  test("a logged-out reader signs in on the share page and comes back to it, then continues the chat", async ({
    chat,
    page,
    browser,
    baseURL,
  }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    const { link } = await share(page);
    const { context, chat: reader } = await device(browser, baseURL as string);
    await reader.page.goto(link);
    const signIn = reader.page.getByRole("button", { name: "Sign in to continue" });
    await signIn.click();
    const dialog = reader.page.getByRole("dialog", { name: "Sign in to keep your chats" });
    await expect(dialog).toBeVisible();
    // Escape gives focus back to the button that opened it.
    await reader.page.keyboard.press("Escape");
    await expect(dialog).toHaveCount(0);
    await expect(signIn).toBeFocused();
    await signIn.click();
    const who = person("Grace Hopper");
    await dialog.getByRole("tab", { name: "Create account" }).click();
    await dialog.getByLabel("Name").fill(who.name);
    await dialog.getByLabel("Email").fill(who.email);
    await dialog.getByLabel("Password").fill(who.password);
    await dialog.getByRole("button", { name: "Create account", exact: true }).click();
    await expect(dialog).toHaveCount(0);
    expect(new URL(reader.page.url()).pathname).toBe(new URL(link).pathname);
    await expect(reader.page.getByText("You can continue this chat now")).toBeVisible();
    await reader.page.getByRole("button", { name: "Continue from here" }).click();
    await expect(reader.page).toHaveURL(/\/chat\//);
    await reader.expectUserMessages(["set color to red"]);
    await expect(await reader.stateValue("color")).toContainText("red");
    await context.close();
  });

  test("with tool calls and files opted in, and continued by a signed-in reader as their own chat", async ({
    chat,
    page,
    browser,
    baseURL,
  }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    await chat.sendMessage("save file notes.txt with content hello");
    const { dialog, link } = await share(page, ["Include tool calls", "Include files"]);
    // The link's options are its own: shown as they are, fixed; other options take another link.
    for (const option of ["Include tool calls", "Include files"]) {
      await expect(dialog.getByLabel(option)).toBeChecked();
      await expect(dialog.getByLabel(option)).toBeDisabled();
    }
    await expect(dialog).toContainText("A link keeps the options it was made with.");
    await page.screenshot({ path: `${SCREENS}/share-created.png` });
    await dialog.getByRole("button", { name: "Make another link" }).click();
    await expect(dialog.getByLabel("Include files")).toBeEnabled();
    await expect(dialog.getByRole("button", { name: "Create link" })).toBeVisible();
    await expect(dialog.getByTestId("share-link")).toHaveText([/tool calls · files/]);
    await page.keyboard.press("Escape");
    await expect(dialog).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Share" })).toBeFocused();

    const { context, chat: reader } = await device(browser, baseURL as string);
    await reader.open();
    await signUpWithEmail(reader.page, person("Grace Hopper"));
    await reader.page.goto(link);
    await expect(reader.page.getByText("update_state")).toBeVisible();
    await expect(reader.page.getByRole("region", { name: "Files" }).getByRole("link", { name: "notes.txt" })).toBeVisible();
    await reader.page.getByRole("button", { name: "Continue from here" }).click();
    await expect(reader.page).toHaveURL(/\/chat\//);
    await expect(reader.composer).toBeEditable();
    await reader.expectUserMessages(["set color to red", "save file notes.txt with content hello"]);
    await expect(await reader.stateValue("color")).toContainText("red");
    await expect(reader.fileRow("notes.txt")).toBeVisible();
    await reader.sendMessage("load file notes.txt");
    await expect(reader.agentMessages().last()).toContainText("hello");
    await context.close();
  });
});

test.describe("across instances and users", () => {
  test("revoked on one instance, a link is a 404 on the other at once; another user's chat is a 404 on every route", async () => {
    const a = instance(INSTANCE_A, await guestToken(INSTANCE_A));
    const stranger = instance(INSTANCE_B, await guestToken(INSTANCE_B));
    const { body } = await a.json<{ data: { id: string } }>("POST", "/api/sessions", { name: "Shared across" });
    const id = body.data.id;
    await a.json("POST", `/api/sessions/${id}/events`, [
      { invocation_id: "e-1", author: "user", content: { role: "user", parts: [{ text: "hello" }] } },
    ]);
    const created = await a.json<{ data: { id: string; url: string } }>("POST", `/api/sessions/${id}/shares`, {});
    expect(created.status).toBe(201);
    const link = new URL(created.body.data.url).pathname;
    expect((await fetch(`${INSTANCE_B}${link}`)).status).toBe(200);

    for (const [method, route] of [
      ["GET", `/api/sessions/${id}/export`],
      ["GET", `/api/sessions/${id}/shares`],
      ["POST", `/api/sessions/${id}/shares`],
      ["DELETE", `/api/sessions/${id}/shares/${created.body.data.id}`],
    ]) {
      expect((await stranger.json(method, route, method === "POST" ? {} : undefined)).status, `${method} ${route}`).toBe(404);
    }

    expect((await a.json("DELETE", `/api/sessions/${id}/shares/${created.body.data.id}`)).status).toBe(200);
    const revoked = Date.now();
    let status = 200;
    while (status !== 404 && Date.now() - revoked < 1000) status = (await fetch(`${INSTANCE_B}${link}`)).status;
    expect(status).toBe(404);
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
