/** A person signing in, as they would: the Sign in dialog, the account menu; and what else the account flows need. */
import { createServer } from "node:net";
import { type Browser, type BrowserContext, type CDPSession, expect, type Page } from "@playwright/test";
import { ChatPage } from "./chat-page";

let people = 0;

/** Someone new: a name, an unused address and a password that passes the strength rule. */
export function person(name = "Ada Lovelace") {
  people += 1;
  return { name, email: `ada${people}-${crypto.randomUUID().slice(0, 8)}@example.com`, password: "correct horse battery staple" };
}
type Person = ReturnType<typeof person>;

/**
 * A browser of its own (a device), at its own client address as a proxy would forward it: sign-in attempts
 * are rate-limited per address, and every test here comes from 127.0.0.1 — which the suite's instances
 * trust as their proxy (RETRACE_TRUSTED_PROXIES in playwright.config.ts).
 */
export async function device(browser: Browser, baseURL: string): Promise<{ context: BrowserContext; chat: ChatPage }> {
  const address = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
  const context = await browser.newContext({ baseURL, extraHTTPHeaders: { "x-forwarded-for": address } });
  return { context, chat: new ChatPage(await context.newPage()) };
}

export function signInDialog(page: Page) {
  return page.getByRole("dialog", { name: "Sign in to keep your chats" });
}

export async function openSignIn(page: Page) {
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(signInDialog(page)).toBeVisible();
}

export async function signUpWithEmail(page: Page, who: Person) {
  await openSignIn(page);
  const dialog = signInDialog(page);
  await dialog.getByRole("tab", { name: "Create account" }).click();
  await dialog.getByLabel("Name").fill(who.name);
  await dialog.getByLabel("Email").fill(who.email);
  await dialog.getByLabel("Password").fill(who.password);
  await dialog.getByRole("button", { name: "Create account", exact: true }).click();
  await expect(dialog).toHaveCount(0);
  await expect(accountButton(page)).toBeVisible();
}

export async function signInWithEmail(page: Page, who: Person) {
  await openSignIn(page);
  const dialog = signInDialog(page);
  await dialog.getByLabel("Email").fill(who.email);
  await dialog.getByLabel("Password").fill(who.password);
  await dialog.getByRole("button", { name: "Sign in", exact: true }).click();
}

export function accountButton(page: Page) {
  return page.getByRole("button", { name: /^Account: / });
}

export async function accountMenu(page: Page, item: string) {
  await accountButton(page).click();
  await page.getByRole("menuitem", { name: item }).click();
}

/** Chromium's virtual WebAuthn authenticator (CDP), a platform passkey store that answers without a prompt. */
export async function virtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

/** A port nothing listens on, for a server a test starts itself. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
