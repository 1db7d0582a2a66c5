import { expect, test } from "./support/fixtures";

test.describe("Rewind to here", () => {
  test.beforeEach(async ({ chat }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    await chat.sendMessage("set color to blue");
    await chat.sendMessage("save file notes.txt with content late file");
    await expect(await chat.stateValue("color")).toContainText("blue");
  });

  test("truncates the list, restores state and files, fills the composer, survives reload, undoes", async ({ chat, page }) => {
    await chat.messageAction("set color to blue", "Rewind to here");
    await chat.expectUserMessages(["set color to red"]);
    await expect(await chat.stateValue("color")).toContainText("red");
    await expect(chat.statePanel.getByText("notes.txt")).toHaveCount(0);
    await expect(chat.composer).toHaveValue("set color to blue");
    const toast = chat.toast(/Rewound 2 turns/);
    await expect(toast).toBeVisible();

    await page.reload();
    await chat.expectUserMessages(["set color to red"]);
    await expect(await chat.stateValue("color")).toContainText("red");

    await chat.messageAction("set color to red", "Rewind to here");
    await chat
      .toast(/Rewound 1 turn/)
      .getByRole("button", { name: "Undo" })
      .click();
    await chat.expectUserMessages(["set color to red"]);
    await expect(await chat.stateValue("color")).toContainText("red");
  });

  test("Undo brings the turns, state and files back", async ({ chat }) => {
    await chat.messageAction("set color to blue", "Rewind to here");
    await chat.expectUserMessages(["set color to red"]);
    await chat
      .toast(/Rewound 2 turns/)
      .getByRole("button", { name: "Undo" })
      .click();
    await chat.expectUserMessages(["set color to red", "set color to blue", "save file notes.txt"]);
    await expect(await chat.stateValue("color")).toContainText("blue");
    await expect(chat.statePanel.getByText("notes.txt")).toBeVisible();
  });

  test("recap after a rewind lists only the surviving user messages", async ({ chat }) => {
    await chat.messageAction("set color to blue", "Rewind to here");
    await chat.composer.fill("");
    await chat.sendMessage("recap");
    const recap = chat.agentMessages().last();
    await expect(recap).toContainText("set color to red");
    await expect(recap).not.toContainText("set color to blue");
    await expect(recap).not.toContainText("notes.txt");
  });

  test("Show rewound turns reveals hidden turns greyed, with a divider", async ({ chat, page }) => {
    await chat.messageAction("set color to blue", "Rewind to here");
    await chat.expectUserMessages(["set color to red"]);
    await chat.showRewoundTurns();
    await expect(page.getByTestId("rewound-turn").first()).toBeVisible();
    await expect(chat.rewindDividers()).toHaveCount(1);
    await expect(page.getByTestId("rewound-turn").filter({ hasText: "set color to blue" })).toBeVisible();
  });

  test("rewound turns shown while the rewind is still on its way are the ones it hid", async ({ chat, page }) => {
    // The switch is flipped while the rewind (a server action) is on its way, and the rewound list read then
    // arrives only after the rewind landed: that stale answer must not replace the fresh one.
    await page.route("**/*", async (route) => {
      if (route.request().headers()["next-action"]) await new Promise((r) => setTimeout(r, 1000));
      await route.continue();
    });
    let stale = true;
    await page.route(
      (url) => url.searchParams.get("include_rewound") === "true",
      async (route) => {
        const first = stale;
        stale = false;
        const response = await route.fetch();
        if (first) await new Promise((r) => setTimeout(r, 2500));
        await route.fulfill({ response });
      },
    );
    await chat.messageAction("set color to blue", "Rewind to here");
    await chat.showRewoundTurns();
    await page.waitForTimeout(3000);
    await expect(page.getByTestId("rewound-turn")).toHaveText([/set color to blue/, /save file notes\.txt/]);
    await expect(chat.rewindDividers()).toHaveCount(1);
    await expect(page.getByTestId("turn")).toHaveText([/set color to red/]);
  });

  test("the menu says what each action does", async ({ chat, page }) => {
    await chat.openMessageMenu("set color to blue");
    await expect(page.getByRole("menuitem", { name: "Rewind to here", exact: true })).toHaveAccessibleDescription(
      "Remove this and later turns; state and files go back",
    );
    await expect(page.getByRole("menuitem", { name: "Fork chat from here", exact: true })).toHaveAccessibleDescription(/new chat/);
    await expect(page.getByRole("menuitem", { name: "Edit & resend", exact: true })).toHaveAccessibleDescription(/send it again/);
  });

  test("a divider says when and why turns were hidden, and Restore brings them back with Undo", async ({ chat, page }) => {
    await chat.messageAction("set color to blue", "Rewind to here");
    await chat.composer.fill("set color to green");
    await chat.send.click();
    await chat.waitForTurnEnd();
    await chat.showRewoundTurns();
    await expect(chat.rewindDividers()).toHaveText([/^Rewound just now\s*Restore$/]);

    await chat.rewindDividers().getByRole("button", { name: "Restore" }).click();
    await chat.expectUserMessages(["set color to red", "set color to blue", "save file notes.txt", "set color to green"]);
    await expect(page.getByTestId("rewound-turn")).toHaveText([/set color to green/]);
    await expect(await chat.stateValue("color")).toContainText("blue");
    await expect(chat.statePanel.getByText("notes.txt")).toBeVisible();
    await expect(chat.rewindDividers()).toHaveText([/^Hidden by Restore just now/]);

    await chat.toast("Restored the rewound turns").getByRole("button", { name: "Undo" }).click();
    await expect(chat.toast("Restore undone")).toBeVisible();
    await expect(page.getByTestId("turn")).toHaveText([/set color to red/, /set color to green/]);
    await expect(await chat.stateValue("color")).toContainText("green");
  });

  test("after Edit & resend the divider says the turn was replaced by an edit", async ({ chat, page }) => {
    await chat.messageAction("save file notes.txt", "Edit & resend");
    await page.getByRole("textbox", { name: "Edit message" }).fill("recap");
    await page.getByRole("button", { name: "Send edit" }).click();
    await chat.waitForTurnEnd();
    await chat.showRewoundTurns();
    await expect(chat.rewindDividers()).toHaveText([/^Replaced by an edit just now/]);
  });

  test("Edit & resend replaces the turn with the edited text", async ({ chat, page }) => {
    await chat.messageAction("set color to blue", "Edit & resend");
    const editor = page.getByRole("textbox", { name: "Edit message" });
    await editor.fill("set color to green");
    await page.getByRole("button", { name: "Send edit" }).click();
    await chat.waitForTurnEnd();
    await chat.expectUserMessages(["set color to red", "set color to green"]);
    await expect(await chat.stateValue("color")).toContainText("green");
  });

  test("Regenerate re-runs the last turn", async ({ chat, page }) => {
    const last = chat.agentMessages().last();
    await last.hover();
    await last.getByRole("button", { name: "Message actions" }).click();
    await page.getByRole("menuitem", { name: "Regenerate", exact: true }).click();
    await chat.waitForTurnEnd();
    await chat.expectUserMessages(["set color to red", "set color to blue", "save file notes.txt"]);
    await expect(chat.statePanel.getByText("notes.txt")).toBeVisible();
  });

  test("message menus are disabled while a turn streams", async ({ chat, page }) => {
    await chat.composer.fill("tell me something long");
    await chat.send.click();
    await expect(page.getByRole("button", { name: "Stop" })).toBeVisible();
    await expect(chat.userMessages().first().getByRole("button", { name: "Message actions" })).toBeDisabled();
    await chat.waitForTurnEnd();
    await expect(chat.userMessages().first().getByRole("button", { name: "Message actions" })).toBeEnabled();
  });
});
