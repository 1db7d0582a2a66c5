import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, expect, test } from "@playwright/test";
import { accountButton, device, freePort, openSignIn, person, signInDialog, signUpWithEmail } from "./support/accounts";
import { startInstance } from "./support/api-client";
import type { ChatPage } from "./support/chat-page";
import { chromiumPath } from "./support/chromium";
import { fakeModel } from "./support/fake-openai-client";
import { SHARED_SECRET } from "./support/instances";

const PORT = Number(process.env.E2E_PORT ?? 3210);
const BASE = `http://127.0.0.1:${PORT}`;

/** The number of the last word the slow model reply shows (word0 … word199), or -1. */
const lastWord = async (chat: ChatPage) =>
  Number((await chat.agentMessages().last().textContent())?.match(/word(\d+)(?!.*word\d)/s)?.[1] ?? -1);

test.describe("accounts: refusals that keep a browser's chats (issue 37)", () => {
  test("signing up while a reply streams says a reply is still running, creates nothing, and works once the reply is over", async ({
    browser,
  }) => {
    const laptop = await device(browser, BASE);
    await fakeModel.reset(laptop.context.request);
    const chat = laptop.chat;
    await chat.open();
    await chat.chooseAgent("assistant");
    await chat.composer.fill("slow please");
    await chat.send.click();
    await expect.poll(() => lastWord(chat), { timeout: 15_000 }).toBeGreaterThan(2);

    const who = person();
    await openSignIn(chat.page);
    const dialog = signInDialog(chat.page);
    await dialog.getByRole("tab", { name: "Create account" }).click();
    await dialog.getByLabel("Name").fill(who.name);
    await dialog.getByLabel("Email").fill(who.email);
    await dialog.getByLabel("Password").fill(who.password);
    await dialog.getByRole("button", { name: "Create account", exact: true }).click();
    await expect(dialog.getByRole("alert")).toHaveText(/^A reply is still running in this chat\./);
    await chat.page.keyboard.press("Escape");
    await expect(chat.page.getByRole("button", { name: "Sign in", exact: true })).toBeVisible();

    await chat.stop.click();
    await chat.waitForTurnEnd();
    // The same address again: had the refused attempt made the account, this would be "already exists".
    await signUpWithEmail(chat.page, who);
    await expect(chat.toast("Account created")).toBeVisible();
    await chat.page.reload();
    await expect(accountButton(chat.page)).toHaveAccessibleName(`Account: ${who.name}`);
    await expect(chat.userMessages()).toHaveText(["slow please"]);
    await laptop.context.close();
  });

  test("over plain HTTP on a name that is not localhost (a LAN address): the account's cookies stick and the chats stay after a reload", async () => {
    // Chromium counts http://localhost and 127.0.0.1 as secure; a LAN name over HTTP is not, and drops Secure cookies.
    const lan = await chromium.launch({
      executablePath: chromiumPath(),
      args: ["--no-sandbox", "--disable-gpu", "--host-resolver-rules=MAP retrace.test 127.0.0.1"],
    });
    try {
      const { context, chat } = await device(lan, `http://retrace.test:${PORT}`);
      await chat.open();
      await chat.sendMessage("set color to red");
      const sessionId = chat.sessionId();
      const who = person();
      await signUpWithEmail(chat.page, who);
      await expect(chat.toast("Account created. Your chats are in it now.")).toBeVisible();
      const cookies = await context.cookies();
      expect(cookies.map((c) => c.name)).toEqual(expect.arrayContaining(["retrace.session_token"]));
      expect(cookies.filter((c) => c.name.includes("session_")).every((c) => !c.secure)).toBe(true);

      await chat.page.reload();
      await expect(accountButton(chat.page)).toHaveAccessibleName(`Account: ${who.name}`);
      await chat.sidebarChat("set color to red").click();
      await expect(chat.page).toHaveURL(new RegExp(`/chat/${sessionId}$`));
      await expect(await chat.stateValue("color")).toContainText("red");
      await context.close();
    } finally {
      await lan.close();
    }
  });

  test("an instance that trusts no proxy counts the connection: 30 wrong passwords with 30 X-Forwarded-For values meet 429s", async () => {
    const port = await freePort();
    const data = mkdtempSync(path.join(tmpdir(), "retrace-e2e-limits-"));
    const app = await startInstance(port, {
      NEXT_DIST_DIR: process.env.E2E_DIST_DIR ?? ".next-e2e",
      DATABASE_PATH: path.join(data, "retrace.db"),
      AUTH_SECRET: SHARED_SECRET,
      RETRACE_TRUSTED_PROXIES: "",
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) {
        const response = await fetch(`${app.base}/api/auth/sign-in/email`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: app.base, "x-forwarded-for": `203.0.113.${i + 1}` },
          body: JSON.stringify({ email: "nobody@example.com", password: "not the password at all" }),
        });
        statuses.push(response.status);
      }
      expect(statuses).toEqual([...Array(5).fill(401), ...Array(25).fill(429)]);
    } finally {
      app.process.kill("SIGTERM");
      rmSync(data, { recursive: true, force: true });
    }
  });
});
