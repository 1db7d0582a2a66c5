import { expect, test } from "./support/fixtures";

test.describe("drafts and Undo toasts", () => {
  test.beforeEach(async ({ chat }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    await chat.sendMessage("set color to blue");
  });

  test("a rewind keeps the draft being typed and offers to replace it; Undo gives the draft back", async ({ chat }) => {
    await chat.composer.fill("my half-typed idea");
    await chat.messageAction("set color to blue", "Rewind to here");
    await chat.expectUserMessages(["set color to red"]);
    await expect(chat.composer).toHaveValue("my half-typed idea");
    const toast = chat.toast(/Rewound 1 turn/);
    await expect(toast).toContainText("Your draft is kept");

    await toast.getByRole("button", { name: "Replace draft" }).click();
    await expect(chat.composer).toHaveValue("set color to blue");
    await toast.getByRole("button", { name: "Restore draft" }).click();
    await expect(chat.composer).toHaveValue("my half-typed idea");
    await toast.getByRole("button", { name: "Replace draft" }).click();
    await expect(chat.composer).toHaveValue("set color to blue");

    await toast.getByRole("button", { name: "Undo" }).click();
    await expect(chat.toast("Rewind undone")).toBeVisible();
    await chat.expectUserMessages(["set color to red", "set color to blue"]);
    await expect(chat.composer).toHaveValue("my half-typed idea");
  });

  test("Undo leaves text typed after the rewind; an untouched rewound message is taken back out", async ({ chat }) => {
    await chat.messageAction("set color to blue", "Rewind to here");
    await expect(chat.composer).toHaveValue("set color to blue");
    await expect(chat.toast(/Rewound 1 turn/)).not.toContainText("draft");
    await chat.composer.fill("set color to teal");
    await chat
      .toast(/Rewound 1 turn/)
      .getByRole("button", { name: "Undo" })
      .click();
    await chat.expectUserMessages(["set color to red", "set color to blue"]);
    await expect(chat.composer).toHaveValue("set color to teal");

    await chat.composer.fill("");
    await chat.messageAction("set color to blue", "Rewind to here");
    await expect(chat.composer).toHaveValue("set color to blue");
    await chat
      .toast(/Rewound 1 turn/)
      .getByRole("button", { name: "Undo" })
      .click();
    await chat.expectUserMessages(["set color to red", "set color to blue"]);
    await expect(chat.composer).toHaveValue("");
  });

  test("an Undo toast belongs to its chat: it goes when the user leaves, and the chat left behind stays as it was", async ({
    chat,
    page,
  }) => {
    const first = chat.sessionId();
    await page.getByRole("link", { name: "New chat" }).click();
    await expect(chat.heading).toHaveText("New chat");
    await expect(chat.composer).toBeEditable();
    await chat.sendMessage("set color to green");
    const other = chat.sidebarChat("set color to green");

    await chat.sidebarChat("set color to red").click();
    await expect(page).toHaveURL(new RegExp(`/chat/${first}$`));
    await chat.messageAction("set color to blue", "Rewind to here");
    await expect(chat.toast(/Rewound 1 turn/)).toBeVisible();
    await other.click();
    await expect(chat.heading).toHaveText("set color to green");
    await expect(chat.toast(/Rewound 1 turn/)).toHaveCount(0);
    await expect(await chat.stateValue("color")).toContainText("green");

    await chat.sidebarChat("set color to red").click();
    await expect(page).toHaveURL(new RegExp(`/chat/${first}$`));
    await chat.expectUserMessages(["set color to red"]);
    await expect(await chat.stateValue("color")).toContainText("red");
    await expect(chat.toast(/Rewound 1 turn/)).toHaveCount(0);

    // Going back in the browser leaves the toast behind too.
    await chat.messageAction("set color to red", "Rewind to here");
    await expect(chat.toast(/Rewound 1 turn/)).toBeVisible();
    await chat.page.goBack();
    await expect(chat.toast(/Rewound 1 turn/)).toHaveCount(0);
  });
});

test.describe("a new chat's composer", () => {
  test("keeps every character typed while the first reply streams and the chat becomes its own page", async ({ chat, page }) => {
    await chat.open();
    await chat.composer.fill("hello");
    await chat.composer.press("Enter");
    await expect(chat.stop).toBeVisible();
    // The page at / gives way to /chat/<id> once the reply ends: type on, key by key, across that swap.
    const first = await chat.composer.elementHandle();
    let typed = "";
    let afterSwap = 0;
    for (const key of "my next question ".repeat(30)) {
      await page.keyboard.type(key);
      typed += key;
      if (!(await first?.evaluate((el) => el.isConnected))) afterSwap++;
      if (afterSwap === 10) break;
    }
    expect(afterSwap).toBe(10);
    await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
    await expect(chat.composer).toHaveValue(typed);
    await expect(chat.composer).toBeFocused();
    await chat.expectUserMessages(["hello"]);
  });
});
