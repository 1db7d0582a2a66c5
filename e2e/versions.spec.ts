import type { Page } from "@playwright/test";
import { guestToken, type Instance, instance } from "./support/api-client";
import { expect, test } from "./support/fixtures";

const pager = (page: Page) => page.getByTestId("version-pager");

/** One demo-agent turn over A2A `message/send`, optionally rewinding before an invocation first (an edit or regenerate). */
async function send(api: Instance, text: string, contextId?: string, rewindBefore?: string) {
  const message = {
    kind: "message",
    role: "user",
    messageId: crypto.randomUUID(),
    parts: [{ kind: "text", text }],
    ...(contextId ? { contextId } : {}),
    ...(rewindBefore ? { metadata: { kagent_rewind_before_invocation_id: rewindBefore } } : {}),
  };
  const { result } = (await api.rpc("message/send", { message })) as {
    result: { contextId: string; metadata: { kagent_invocation_id: string } };
  };
  return { sessionId: result.contextId, invocationId: result.metadata.kagent_invocation_id };
}

test.describe("versions", () => {
  test("edit → pager 2 / 2 → previous shows the old branch and its state → reload → 1 / 2 → next", async ({ chat, page }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    await chat.sendMessage("set color to blue");
    await chat.messageAction("set color to blue", "Edit & resend");
    await page.getByRole("textbox", { name: "Edit message" }).fill("set color to green");
    await page.getByRole("button", { name: "Send edit" }).click();
    await chat.waitForTurnEnd();
    await chat.expectUserMessages(["set color to red", "set color to green"]);
    await expect(pager(page)).toHaveCount(1);
    await expect(chat.userMessage("set color to green").getByRole("group", { name: "Version 2 of 2" })).toHaveText("2 / 2");
    await expect(pager(page).getByRole("button", { name: "Next version" })).toBeDisabled();

    await pager(page).getByRole("button", { name: "Previous version" }).click();
    await chat.expectUserMessages(["set color to red", "set color to blue"]);
    await expect(pager(page)).toHaveText("1 / 2");
    await expect(await chat.stateValue("color")).toContainText("blue");

    await page.reload();
    await expect(chat.composer).toBeEditable();
    await chat.expectUserMessages(["set color to red", "set color to blue"]);
    await expect(pager(page)).toHaveText("1 / 2");
    await pager(page).getByRole("button", { name: "Next version" }).click();
    await chat.expectUserMessages(["set color to red", "set color to green"]);
    await expect(pager(page)).toHaveText("2 / 2");
    await expect(await chat.stateValue("color")).toContainText("green");
  });

  test("the pager works from the keyboard and keeps focus on itself", async ({ chat, page }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    await chat.messageAction("set color to red", "Edit & resend");
    await page.getByRole("textbox", { name: "Edit message" }).fill("set color to green");
    await page.getByRole("button", { name: "Send edit" }).click();
    await chat.waitForTurnEnd();

    await pager(page).getByRole("button", { name: "Previous version" }).focus();
    await page.keyboard.press("Enter");
    await chat.expectUserMessages(["set color to red"]);
    await expect(pager(page).getByRole("button", { name: "Next version" })).toBeFocused();
    await page.keyboard.press("Enter");
    await chat.expectUserMessages(["set color to green"]);
    await expect(pager(page).getByRole("button", { name: "Previous version" })).toBeFocused();
    await expect(await chat.stateValue("color")).toContainText("green");
  });

  test("History lists every version and Restore brings one back, with Undo", async ({ chat, page }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    await chat.sendMessage("set color to blue");
    await chat.sendMessage("save file notes.txt with content blue days");
    await chat.messageAction("set color to blue", "Rewind to here");
    await chat.expectUserMessages(["set color to red"]);
    await chat.composer.fill("set color to green");
    await chat.send.click();
    await chat.waitForTurnEnd();

    await page.getByRole("button", { name: "History" }).click();
    const panel = page.getByRole("dialog", { name: "History" });
    const versions = panel.getByTestId("version");
    await expect(versions).toHaveCount(2);
    await expect(versions.nth(0)).toContainText("set color to green");
    await expect(versions.nth(0)).toContainText("2 turns");
    await expect(versions.nth(0)).toContainText("Current");
    await expect(versions.nth(1)).toContainText("save file notes.txt");
    await expect(versions.nth(1)).toContainText("3 turns");
    await versions.nth(1).getByRole("button", { name: "Restore" }).click();
    await expect(panel).toHaveCount(0);

    await chat.expectUserMessages(["set color to red", "set color to blue", "save file notes.txt"]);
    await expect(await chat.stateValue("color")).toContainText("blue");
    await expect(chat.fileRow("notes.txt")).toBeVisible();
    await chat.toast("Restored an earlier version").getByRole("button", { name: "Undo" }).click();
    await expect(chat.toast("Restore undone")).toBeVisible();
    await chat.expectUserMessages(["set color to red", "set color to green"]);
    await expect(await chat.stateValue("color")).toContainText("green");
    await expect(chat.fileRow("notes.txt")).toHaveCount(0);

    // By keyboard: the panel opens, its Restore is reachable, Escape closes it and focus returns to History.
    await page.getByRole("button", { name: "History" }).focus();
    await page.keyboard.press("Enter");
    await expect(panel.getByTestId("version")).toHaveCount(4);
    await page.keyboard.press("Escape");
    await expect(panel).toHaveCount(0);
    await expect(page.getByRole("button", { name: "History" })).toBeFocused();
  });

  test("versions made through the API show their pager: on the message for edits, on the reply for regenerations", async ({
    chat,
    page,
    baseURL,
  }) => {
    const token = await guestToken(baseURL!);
    const api = instance(baseURL!, token);
    const red = await send(api, "set color to red");
    const blue = await send(api, "set color to blue", red.sessionId);
    await send(api, "set color to green", red.sessionId, blue.invocationId);
    const again = await send(api, "what is color?");
    await send(api, "what is color?", again.sessionId, again.invocationId);
    await page.context().addCookies([{ name: "retrace_token", value: token, url: baseURL! }]);

    await chat.open(`/chat/${red.sessionId}`);
    await expect(chat.userMessage("set color to green").getByTestId("version-pager")).toHaveText("2 / 2");
    await pager(page).getByRole("button", { name: "Previous version" }).click();
    await chat.expectUserMessages(["set color to red", "set color to blue"]);
    await expect(await chat.stateValue("color")).toContainText("blue");

    await chat.open(`/chat/${again.sessionId}`);
    await expect(chat.userMessages().getByTestId("version-pager")).toHaveCount(0);
    await expect(chat.agentMessages().getByTestId("version-pager")).toHaveText("2 / 2");
    await chat.agentMessages().getByRole("button", { name: "Previous version" }).click();
    await expect(chat.agentMessages().getByTestId("version-pager")).toHaveText("1 / 2");
  });
});
