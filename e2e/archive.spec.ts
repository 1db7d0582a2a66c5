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

  test("a file that is no export is refused with a readable message", async ({ chat, page }) => {
    await chat.open();
    await page
      .getByLabel("Files to import")
      .setInputFiles({ name: "notes.json", mimeType: "application/json", buffer: Buffer.from("hello") });
    await expect(chat.toast(/not a Retrace archive, a ChatGPT conversations.json/)).toBeVisible();
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
    await expect(page.getByTestId("share-link")).toHaveCount(0);
    expect((await viewer.goto(link))?.status()).toBe(404);
    await stranger.close();
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
    const { link } = await share(page, ["Include tool calls", "Include files"]);

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
  // On a phone every header control stays on screen.
  for (const name of ["History", "Share", "Export"]) {
    const box = await page.getByRole("button", { name, exact: true }).boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390, name).toBe(true);
  }
  await page.getByRole("button", { name: "Export", exact: true }).click();
  await page.screenshot({ path: `${SCREENS}/export-phone-dark.png` });
  await page.keyboard.press("Escape");
  const stranger = await browser.newContext({ baseURL, viewport: { width: 390, height: 844 }, colorScheme: "dark" });
  const viewer = await stranger.newPage();
  await viewer.goto(link);
  await expect(viewer.getByText("update_state")).toBeVisible();
  await viewer.screenshot({ path: `${SCREENS}/shared-phone-dark.png`, fullPage: true });
  await stranger.close();
});
