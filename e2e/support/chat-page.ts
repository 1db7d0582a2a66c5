import { expect, type Locator, type Page } from "@playwright/test";

/** What a person does and sees on a chat, by accessible names only. */
export class ChatPage {
  readonly composer: Locator;
  readonly send: Locator;
  readonly statePanel: Locator;

  constructor(readonly page: Page) {
    this.composer = page.getByRole("textbox", { name: "Message" });
    this.send = page.getByRole("button", { name: "Send" });
    this.statePanel = page.getByRole("region", { name: "Session state" });
  }

  async open(path = "/") {
    await this.page.goto(path);
    // Editable only once hydrated: anything done to the page before that would be undone.
    await expect(this.composer).toBeEditable();
  }

  /** Picks the agent of a new chat (before its first message). */
  async chooseAgent(name: string) {
    await this.page.getByRole("combobox", { name: "Agent" }).selectOption(name);
  }

  /** Sends a message and waits until the agent's turn has finished streaming. */
  async sendMessage(text: string) {
    await this.composer.fill(text);
    await this.send.click();
    await this.waitForTurnEnd();
  }

  async waitForTurnEnd() {
    await expect(this.page.getByRole("button", { name: "Stop" })).toHaveCount(0, { timeout: 20_000 });
    await expect(this.composer).toBeEditable();
  }

  userMessages() {
    return this.page.getByTestId("user-message");
  }

  agentMessages() {
    return this.page.getByTestId("agent-message");
  }

  async expectUserMessages(texts: string[]) {
    await expect(this.userMessages()).toHaveText(texts.map((t) => new RegExp(escapeRegExp(t))));
  }

  /** Opens the "Message actions" menu of the user message containing `text` and picks `item`. */
  async messageAction(text: string, item: string) {
    const message = this.userMessages().filter({ hasText: text }).first();
    await message.hover();
    await message.getByRole("button", { name: "Message actions" }).click();
    await this.page.getByRole("menuitem", { name: item, exact: true }).click();
  }

  async stateValue(key: string) {
    return this.statePanel.getByTestId(`state-${key}`);
  }

  sessionId(): string {
    const match = new URL(this.page.url()).pathname.match(/^\/chat\/([^/]+)$/);
    if (!match) throw new Error(`not on a chat page: ${this.page.url()}`);
    return match[1];
  }

  sidebarChat(name: string | RegExp) {
    return this.page.getByRole("navigation", { name: "Chats" }).getByRole("link", { name });
  }

  toast(text: string | RegExp) {
    return this.page.locator("[data-sonner-toast]").filter({ hasText: text });
  }
}

function escapeRegExp(text: string) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
