import { ChatPage } from "./support/chat-page";
import { fakeModel } from "./support/fake-openai-client";
import { expect, test } from "./support/fixtures";
import { INSTANCE_A, INSTANCE_B } from "./support/instances";

/** The number of the last word the slow model reply shows (word0 … word199), or -1. */
const lastWord = async (chat: ChatPage) =>
  Number((await chat.agentMessages().last().textContent())?.match(/word(\d+)(?!.*word\d)/s)?.[1] ?? -1);

/** Starts a 20-second model reply in a new chat and waits until it is streaming. */
async function startSlowTurn(chat: ChatPage, path = "/") {
  await chat.open(path);
  await chat.chooseAgent("assistant");
  await chat.composer.fill("slow please");
  await chat.send.click();
  await expect.poll(() => lastWord(chat), { timeout: 15_000 }).toBeGreaterThan(2);
}

/** The turn streams on this page: words keep coming, Stop is there, nothing can be sent. */
async function expectStreaming(chat: ChatPage) {
  await expect(chat.userMessages()).toHaveText(["slow please"]);
  const seen = await lastWord(chat);
  await expect.poll(() => lastWord(chat), { timeout: 15_000 }).toBeGreaterThan(seen + 3);
  await expect(chat.stop).toBeVisible();
  await expect(chat.send).toHaveCount(0);
  await expect(chat.conversation).toHaveAttribute("aria-busy", "true");
}

/** Stop on this page ends the turn: what streamed is kept, marked interrupted, and the task is canceled. */
async function stopAndCheck(chat: ChatPage, ...others: ChatPage[]) {
  await chat.stop.click();
  for (const page of [chat, ...others]) {
    await page.waitForTurnEnd();
    await expect(page.agentMessages().last()).toContainText("Interrupted");
  }
  const tasks = await (await chat.page.request.get(`${new URL(chat.page.url()).origin}/api/sessions/${chat.sessionId()}/tasks`)).json();
  expect(tasks.data.map((t: { status: { state: string } }) => t.status.state)).toEqual(["canceled"]);
}

test.describe("live turns", () => {
  test.beforeEach(async ({ page }) => {
    await fakeModel.reset(page.request);
  });

  test("reloading mid-turn shows it still streaming; Stop works; nothing is sent until it ends", async ({ chat, page }) => {
    await startSlowTurn(chat);
    await page.reload();
    await expect(chat.composer).toBeEditable();
    await expectStreaming(chat);
    await chat.composer.fill("set color to red");
    await chat.composer.press("Enter");
    await expect(chat.userMessages()).toHaveCount(1);

    await stopAndCheck(chat);
    await expect(chat.composer).toHaveValue("set color to red");
    await chat.send.click();
    await chat.waitForTurnEnd();
    await expect(chat.userMessages()).toHaveCount(2);
  });

  test("a second tab shows the running turn streaming, and its Stop ends it in both tabs", async ({ chat, context }) => {
    await startSlowTurn(chat);
    const other = new ChatPage(await context.newPage());
    await other.open(`/chat/${chat.sessionId()}`);
    await expectStreaming(other);
    await stopAndCheck(other, chat);
  });

  test("across two instances on one PostgreSQL: a turn started on A streams on B, after a reload too, and B's Stop ends it", async ({
    browser,
  }) => {
    // One browser, so one guest: the instances share AUTH_SECRET and the cookie's host.
    const context = await browser.newContext();
    const a = new ChatPage(await context.newPage());
    await startSlowTurn(a, `${INSTANCE_A}/`);
    const b = new ChatPage(await context.newPage());
    await b.open(`${INSTANCE_B}/chat/${a.sessionId()}`);
    await expectStreaming(b);
    await b.page.reload();
    await expect(b.composer).toBeEditable();
    await expectStreaming(b);
    await stopAndCheck(b, a);
    await context.close();
  });
});
