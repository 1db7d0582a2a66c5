import type { ChatPage } from "./support/chat-page";
import { DESKTOP, PHONE } from "./support/devices";
import { expect, test } from "./support/fixtures";

/** Replies of every shape the demo agent gives: text, tool calls, files, lists, code. */
const MESSAGES = [
  "hello",
  "set color to red",
  "what is color?",
  "save file notes.txt with content hi there",
  "recap",
  "load file notes.txt",
  "save file code.md with content Here:\n```python\nprint('hi')\n```",
];

/** After every reply the view rests at the very end, with no "Jump to latest" over the answer. */
async function expectEachReplyEndsInView(chat: ChatPage) {
  const fromBottom = () => chat.conversation.evaluate((e) => e.scrollHeight - e.clientHeight - e.scrollTop);
  const jump = chat.page.getByRole("button", { name: "Jump to latest" });
  await chat.open();
  for (const text of MESSAGES) {
    await chat.sendMessage(text);
    await expect.poll(fromBottom, { message: `after "${text}"` }).toBeLessThanOrEqual(1);
    // Still there once the finished turn's actions and measurements have settled.
    await chat.page.waitForTimeout(400);
    expect(await fromBottom(), `after "${text}"`).toBeLessThanOrEqual(1);
    await expect(jump).toHaveCount(0);
  }
}

test.describe("the view follows each reply to its end", () => {
  test.describe("on a desktop", () => {
    test.use(DESKTOP);
    test("on a desktop", ({ chat }) => expectEachReplyEndsInView(chat));
  });

  test.describe("on a phone", () => {
    test.use(PHONE);
    test("on a phone", ({ chat }) => expectEachReplyEndsInView(chat));
  });
});
