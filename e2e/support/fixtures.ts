import { type Browser, type BrowserContext, test as base } from "@playwright/test";
import { ChatPage } from "./chat-page";

interface Fixtures {
  chat: ChatPage;
  /** A second, separate guest user in its own browser context. */
  otherChat: ChatPage;
}

async function guestContext(browser: Browser, baseURL: string | undefined): Promise<BrowserContext> {
  return browser.newContext({ baseURL });
}

export const test = base.extend<Fixtures>({
  chat: async ({ page }, use) => {
    await use(new ChatPage(page));
  },
  otherChat: async ({ browser, baseURL }, use) => {
    const context = await guestContext(browser, baseURL);
    await use(new ChatPage(await context.newPage()));
    await context.close();
  },
});

export { expect } from "@playwright/test";
