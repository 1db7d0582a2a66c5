import { expect, test } from "@playwright/test";
import { startIdp } from "../tests/support/oidc-idp";
import {
  accountButton,
  accountMenu,
  device,
  freePort,
  openSignIn,
  person,
  signInDialog,
  signInWithEmail,
  signUpWithEmail,
  virtualAuthenticator,
} from "./support/accounts";
import { startInstance } from "./support/api-client";
import type { ChatPage } from "./support/chat-page";
import { INSTANCE_A, INSTANCE_B, POSTGRES_PORT, SHARED_SECRET } from "./support/instances";

const BASE = `http://127.0.0.1:${Number(process.env.E2E_PORT ?? 3210)}`;

/** A chat with a file, state, and two versions (a rewind, then another turn). */
async function chatWithVersions(chat: ChatPage) {
  await chat.open();
  await chat.sendMessage("save file notes.txt with content hello");
  await chat.sendMessage("set color to red");
  await chat.sendMessage("set color to blue");
  await chat.messageAction("set color to blue", "Rewind to here");
  await chat.expectUserMessages(["save file notes.txt", "set color to red"]);
  await chat.composer.fill("set color to green");
  await chat.send.click();
  await chat.waitForTurnEnd();
  return chat.sessionId();
}

/** What a person checks on another device: the chat, its state, its file and its two versions. */
async function expectSameChat(chat: ChatPage, sessionId: string) {
  await chat.sidebarChat("save file notes.txt").click();
  await expect(chat.page).toHaveURL(new RegExp(`/chat/${sessionId}$`));
  await chat.expectUserMessages(["save file notes.txt", "set color to red", "set color to green"]);
  await expect(await chat.stateValue("color")).toContainText("green");
  await expect(chat.fileRow("notes.txt")).toBeVisible();
  await chat.page.getByRole("button", { name: "History" }).click();
  await expect(chat.page.getByRole("dialog", { name: "History" }).getByTestId("version")).toHaveCount(2);
  await chat.page.keyboard.press("Escape");
}

test.describe("accounts", () => {
  test("email and password: the guest's chats, versions and files follow the account to another device; signing out leaves a new guest", async ({
    browser,
  }) => {
    const laptop = await device(browser, BASE);
    const sessionId = await chatWithVersions(laptop.chat);
    const who = person();
    await signUpWithEmail(laptop.chat.page, who);
    await expect(laptop.chat.toast("Account created")).toBeVisible();
    await expect(laptop.chat.sidebarChat("save file notes.txt")).toBeVisible();

    const phone = await device(browser, BASE);
    await phone.chat.open();
    await expect(phone.chat.page.getByText("No chats yet.")).toBeVisible();
    await signInWithEmail(phone.chat.page, who);
    await expect(accountButton(phone.chat.page)).toHaveAccessibleName(`Account: ${who.name}`);
    await expectSameChat(phone.chat, sessionId);

    await accountMenu(laptop.chat.page, "Sign out");
    await expect(laptop.chat.page.getByRole("button", { name: "Sign in", exact: true })).toBeVisible();
    await expect(laptop.chat.page.getByText("No chats yet.")).toBeVisible();
    await expect(laptop.chat.toast("Signed out. Your chats are in your account")).toBeVisible();
    expect(new URL(laptop.chat.page.url()).search).toBe("");
    await laptop.context.close();
    await phone.context.close();
  });

  test("a wrong password says so, and the dialog keeps what was typed", async ({ browser }) => {
    const laptop = await device(browser, BASE);
    await laptop.chat.open();
    await signInWithEmail(laptop.chat.page, { ...person(), password: "not the right one at all" });
    const dialog = signInDialog(laptop.chat.page);
    await expect(dialog.getByRole("alert")).toHaveText("That email and password don't match an account.");
    await expect(dialog.getByLabel("Password")).toHaveValue("not the right one at all");
    // Escape gives focus back to the button that opened the dialog.
    await laptop.chat.page.keyboard.press("Escape");
    await expect(dialog).toHaveCount(0);
    await expect(laptop.chat.page.getByRole("button", { name: "Sign in", exact: true })).toBeFocused();
    await laptop.context.close();
  });

  test("a passkey at an IP address says passkeys need localhost or HTTPS, not the browser's raw error", async ({ browser }) => {
    const laptop = await device(browser, BASE);
    await virtualAuthenticator(laptop.chat.page);
    await laptop.chat.open();
    await openSignIn(laptop.chat.page);
    const dialog = signInDialog(laptop.chat.page);
    await dialog.getByRole("button", { name: "Sign in with a passkey" }).click();
    await expect(dialog.getByRole("alert")).toHaveText(/^Passkeys need a secure address: open Retrace at localhost or over HTTPS/);
    await expect(dialog.getByRole("alert")).not.toContainText("invalid domain");
    await dialog.getByRole("tab", { name: "Create account" }).click();
    await dialog.getByLabel("Name").fill("Ada");
    await dialog.getByLabel("Email").fill(person().email);
    await dialog.getByRole("button", { name: "Create account with a passkey" }).click();
    await expect(dialog.getByRole("alert")).toHaveText(/^Passkeys need a secure address/);
    await laptop.context.close();
  });

  test("deleting the account says it is done on the page that follows", async ({ browser }) => {
    const laptop = await device(browser, BASE);
    await laptop.chat.open();
    const who = person();
    await signUpWithEmail(laptop.chat.page, who);
    await accountMenu(laptop.chat.page, "Delete account…");
    const dialog = laptop.chat.page.getByRole("dialog", { name: "Delete account" });
    await dialog.getByLabel(`Type ${who.email} to confirm`).fill(who.email);
    await dialog.getByRole("button", { name: "Delete account and all chats" }).click();
    await expect(laptop.chat.toast("Your account and all its chats are deleted.")).toBeVisible();
    await expect(laptop.chat.page.getByRole("button", { name: "Sign in", exact: true })).toBeVisible();
    expect(new URL(laptop.chat.page.url()).search).toBe("");
    await laptop.context.close();
  });

  test("passkeys (Chromium's virtual authenticator): create an account with a passkey, then sign in with it on another device", async ({
    browser,
  }) => {
    // WebAuthn refuses IP addresses as relying parties: these devices use the name localhost.
    const base = BASE.replace("127.0.0.1", "localhost");
    const laptop = await device(browser, base);
    const sessionId = await chatWithVersions(laptop.chat);
    const passkeys = await virtualAuthenticator(laptop.chat.page);
    const who = person("Margaret Hamilton");
    await openSignIn(laptop.chat.page);
    const dialog = signInDialog(laptop.chat.page);
    await dialog.getByRole("tab", { name: "Create account" }).click();
    await dialog.getByLabel("Name").fill(who.name);
    await dialog.getByLabel("Email").fill(who.email);
    await dialog.getByRole("button", { name: "Create account with a passkey" }).click();
    await expect(accountButton(laptop.chat.page)).toHaveAccessibleName(`Account: ${who.name}`);
    const { credentials } = await passkeys.cdp.send("WebAuthn.getCredentials", { authenticatorId: passkeys.authenticatorId });
    expect(credentials).toHaveLength(1);

    // The same passkey, synced to a phone (copied into its authenticator).
    const phone = await device(browser, base);
    await phone.chat.open();
    const phoneKeys = await virtualAuthenticator(phone.chat.page);
    await phoneKeys.cdp.send("WebAuthn.addCredential", { authenticatorId: phoneKeys.authenticatorId, credential: credentials[0] });
    await openSignIn(phone.chat.page);
    await signInDialog(phone.chat.page).getByRole("button", { name: "Sign in with a passkey" }).click();
    await expect(accountButton(phone.chat.page)).toHaveAccessibleName(`Account: ${who.name}`);
    await expectSameChat(phone.chat, sessionId);
    await laptop.context.close();
    await phone.context.close();
  });

  test("two instances on one PostgreSQL: sign up on A, carry on on B, and sign in on B from another device", async ({ browser }) => {
    const laptop = await device(browser, INSTANCE_A);
    const sessionId = await chatWithVersions(laptop.chat);
    const who = person();
    await signUpWithEmail(laptop.chat.page, who);
    // The same browser on instance B (cookies belong to the host, not the port): still signed in, same chats.
    await laptop.chat.open(`${INSTANCE_B}/`);
    await expect(accountButton(laptop.chat.page)).toBeVisible();
    await expectSameChat(laptop.chat, sessionId);

    const phone = await device(browser, INSTANCE_B);
    await phone.chat.open();
    await signInWithEmail(phone.chat.page, who);
    await expectSameChat(phone.chat, sessionId);
    await laptop.context.close();
    await phone.context.close();
  });

  test("single sign-on through a real OpenID Connect provider, on an instance configured for it", async ({ browser }) => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const idp = await startIdp([`${base}/api/auth/callback/oidc`]);
    const app = await startInstance(port, {
      NEXT_DIST_DIR: process.env.E2E_DIST_DIR ?? ".next-e2e",
      DATABASE_URL: `postgres://postgres@127.0.0.1:${POSTGRES_PORT}/postgres`,
      AUTH_SECRET: SHARED_SECRET,
      DEMO_WORD_DELAY_MS: "0",
      RETRACE_OIDC_ISSUER: idp.issuer,
      RETRACE_OIDC_CLIENT_ID: idp.clientId,
      RETRACE_OIDC_CLIENT_SECRET: idp.clientSecret,
      RETRACE_OIDC_NAME: "Acme SSO",
    });
    try {
      const user = { sub: crypto.randomUUID(), email: person().email, name: "Kay Sso" };
      idp.loginAs(user);
      const laptop = await device(browser, base);
      const sessionId = await chatWithVersions(laptop.chat);
      await openSignIn(laptop.chat.page);
      await signInDialog(laptop.chat.page).getByRole("button", { name: "Continue with Acme SSO" }).click();
      await expect(accountButton(laptop.chat.page)).toHaveAccessibleName("Account: Kay Sso");
      await expect(laptop.chat.page).toHaveURL(new RegExp(`/chat/${sessionId}$`));

      const phone = await device(browser, base);
      await phone.chat.open();
      await openSignIn(phone.chat.page);
      await signInDialog(phone.chat.page).getByRole("button", { name: "Continue with Acme SSO" }).click();
      await expect(accountButton(phone.chat.page)).toBeVisible();
      await expectSameChat(phone.chat, sessionId);
      await laptop.context.close();
      await phone.context.close();
    } finally {
      app.process.kill("SIGTERM");
      await idp.stop();
    }
  });

  test("a forged guest token: the sign-in is refused with a reason, and the account gets nothing", async ({ browser }) => {
    const owner = await device(browser, BASE);
    await owner.chat.open();
    const who = person();
    await signUpWithEmail(owner.chat.page, who);

    const attacker = await device(browser, BASE);
    await attacker.chat.open();
    const [cookie] = await attacker.context.cookies();
    const [header, , signature] = cookie.value.split(".");
    const claims = Buffer.from(JSON.stringify({ sub: crypto.randomUUID(), iat: Math.floor(Date.now() / 1000) })).toString("base64url");
    await attacker.context.addCookies([{ ...cookie, value: `${header}.${claims}.${signature}` }]);
    await signInWithEmail(attacker.chat.page, who);
    await expect(signInDialog(attacker.chat.page).getByRole("alert")).toHaveText(
      "This browser's guest session could not be verified. Reload the page and try again.",
    );
    await owner.chat.page.reload();
    await expect(owner.chat.page.getByText("No chats yet.")).toBeVisible();
    await owner.context.close();
    await attacker.context.close();
  });

  test("an API token made in the account menu works as Bearer until it is revoked", async ({ browser }) => {
    const laptop = await device(browser, BASE);
    await laptop.chat.open();
    await laptop.chat.sendMessage("set color to red");
    await signUpWithEmail(laptop.chat.page, person());
    await accountMenu(laptop.chat.page, "API tokens");
    const dialog = laptop.chat.page.getByRole("dialog", { name: "API tokens" });
    await dialog.getByLabel("Token name").fill("CI");
    await expect(dialog.getByLabel("Expires")).toHaveValue("90");
    await dialog.getByLabel("Expires").selectOption({ label: "30 days" });
    await dialog.getByRole("button", { name: "Create token" }).click();
    const token = (await dialog.getByTestId("new-token").textContent()) ?? "";
    const list = () => fetch(`${BASE}/api/sessions`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await (await list()).json()) as { data: unknown[] }).data).toHaveLength(1);
    // A first request to paste, and when the token stops working.
    await expect(dialog.getByTestId("token-example")).toHaveText(`curl -H "Authorization: Bearer ${token}" ${BASE}/api/sessions`);
    const expires = new Date(Date.now() + 30 * 86_400_000).toLocaleDateString("en-US");
    await expect(dialog.getByRole("list", { name: "Your API tokens" })).toContainText(`expires ${expires}`);
    await laptop.chat.page.screenshot({ path: test.info().outputPath("tokens-dialog.png") });
    await dialog.getByRole("button", { name: "Revoke CI" }).click();
    await expect(dialog.getByText("No tokens yet.")).toBeVisible();
    expect((await list()).status).toBe(401);
    await laptop.context.close();
  });
});
