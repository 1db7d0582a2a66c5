import { device, person, signUpWithEmail } from "./support/accounts";
import { guestToken, instance } from "./support/api-client";
import { expect, test } from "./support/fixtures";
import { INSTANCE_A, INSTANCE_B } from "./support/instances";

const SCREENS = "test-results/screens";

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
