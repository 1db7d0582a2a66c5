import { fakeModel } from "./support/fake-openai-client";
import { expect, test } from "./support/fixtures";

test.describe("Stop and failures", () => {
  test("Stop before the first token stops at once, then cancels the task as soon as the server names it", async ({ chat, page }) => {
    await fakeModel.reset(page.request);
    await chat.open();
    await chat.chooseAgent("assistant");
    // A slow network: the message reaches the server only when the test lets it.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/api/a2a/**", async (route) => {
      if (/stream/i.test(route.request().postData() ?? "")) await held;
      await route.continue();
    });
    const cancelSent = page.waitForRequest((r) => r.url().includes("/api/a2a/") && /cancel/i.test(r.postData() ?? ""));

    await chat.composer.fill("slow please");
    await chat.send.click();
    await chat.stop.click();
    await expect(chat.stop).toHaveCount(0);
    await expect(chat.agentMessages().last()).toContainText("Stopped");
    await expect(chat.composer).toBeEditable();

    release();
    await cancelSent;
    await chat.waitForTurnEnd();
    const id = chat.sessionId();
    const { data: tasks } = await (await page.request.get(`/api/sessions/${id}/tasks`)).json();
    expect(tasks.map((t: { status: { state: string } }) => t.status.state)).toEqual(["canceled"]);
    for (const request of await fakeModel.requests(page.request)) expect(request.aborted).toBe(true);
    await page.reload();
    await chat.expectUserMessages(["slow please"]);
    await expect(page.getByText("word199")).toHaveCount(0);
  });

  test("a send that cannot reach the server says so, keeps the text, and Retry sends it", async ({ chat, page }) => {
    await chat.open();
    await page.route("**/api/a2a/**", (route) => route.abort("internetdisconnected"));
    await chat.composer.fill("hello offline");
    await chat.send.click();
    const failed = page.getByTestId("failed-turn");
    await expect(failed).toContainText("hello offline");
    await expect(failed.getByRole("alert")).toContainText("Couldn't reach the server — check your connection");
    await expect(chat.toast("Couldn't reach the server — check your connection")).toBeVisible();
    await expect(chat.composer).toHaveValue("hello offline");

    await page.unroute("**/api/a2a/**");
    await failed.getByRole("button", { name: "Retry" }).click();
    await chat.waitForTurnEnd();
    await expect(failed).toHaveCount(0);
    await chat.expectUserMessages(["hello offline"]);
    await expect(chat.agentMessages()).toHaveCount(1);
    await expect(chat.composer).toHaveValue("");
    await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  });
});
