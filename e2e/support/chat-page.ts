import { expect, type Locator, type Page } from "@playwright/test";

/** What a person does and sees on a chat, by accessible names only. */
export class ChatPage {
  readonly composer: Locator;
  readonly send: Locator;
  readonly stop: Locator;
  readonly statePanel: Locator;
  /** The conversation: `aria-busy` while a turn, rewind or fork runs. */
  readonly conversation: Locator;
  readonly heading: Locator;

  constructor(readonly page: Page) {
    this.composer = page.getByRole("textbox", { name: "Message" });
    this.send = page.getByRole("button", { name: "Send" });
    this.stop = page.getByRole("button", { name: "Stop" });
    this.statePanel = page.getByRole("region", { name: "Session state" });
    this.conversation = page.getByRole("main");
    this.heading = page.getByRole("heading", { level: 1 });
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

  /** The turn is over: no Stop, nothing running, the composer editable. */
  async waitForTurnEnd() {
    await expect(this.stop).toHaveCount(0, { timeout: 20_000 });
    await expect(this.conversation).toHaveAttribute("aria-busy", "false", { timeout: 20_000 });
    await expect(this.composer).toBeEditable();
  }

  userMessages() {
    return this.page.getByTestId("user-message");
  }

  userMessage(text: string) {
    return this.userMessages().filter({ hasText: text }).first();
  }

  agentMessages() {
    return this.page.getByTestId("agent-message");
  }

  async expectUserMessages(texts: string[]) {
    await expect(this.userMessages()).toHaveText(texts.map((t) => new RegExp(escapeRegExp(t))));
  }

  /** Opens the "Message actions" menu of the user message containing `text` and picks `item`. */
  async messageAction(text: string, item: string) {
    await this.openMessageMenu(text);
    await this.page.getByRole("menuitem", { name: item, exact: true }).click();
  }

  async openMessageMenu(text: string) {
    const message = this.userMessage(text);
    await message.hover();
    await message.getByRole("button", { name: "Message actions" }).click();
  }

  async stateValue(key: string) {
    return this.statePanel.getByTestId(`state-${key}`);
  }

  /** The state panel's file row, e.g. "notes.txt v0 · restored". */
  fileRow(filename: string) {
    return this.statePanel.getByRole("link", { name: new RegExp(`^${escapeRegExp(filename)}`) });
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

  rewindDividers() {
    return this.page.getByTestId("rewind-divider");
  }

  /** The rewound-turns switch: in the header, or in its "More" menu where the header is narrow (a phone). */
  async showRewoundTurns() {
    const toggle = this.page.getByRole("switch", { name: "Show rewound turns" });
    if (await toggle.isVisible()) return toggle.click();
    await this.moreMenu();
    await this.page.getByRole("menuitemcheckbox", { name: "Show rewound turns" }).click();
  }

  /**
   * Opens one of the header's controls, by its button where the header has room, else by the item of the same
   * name in its "More" menu (a phone): Map, History, Share, Export (its menu), or State (the state sheet).
   */
  async openFromHeader(name: "Map" | "History" | "Share" | "Export" | "State", how: "click" | "tap" = "click") {
    const button = this.page.getByRole("button", { name: name === "State" ? "Open state panel" : name, exact: true });
    if (await button.isVisible()) return button[how]();
    await this.moreMenu(how);
    await this.page.getByRole("menuitem", { name: name === "State" ? "State and files" : name, exact: true })[how]();
  }

  /** Opens the header's "More" menu (a narrow header's controls). */
  async moreMenu(how: "click" | "tap" = "click") {
    await this.page.getByRole("button", { name: "More", exact: true })[how]();
    await expect(this.page.getByRole("menu")).toBeVisible();
  }
}

function escapeRegExp(text: string) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
