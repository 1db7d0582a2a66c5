import type { Page } from "@playwright/test";
import { fakeModel } from "./support/fake-openai-client";
import { expect, test } from "./support/fixtures";

const modelButton = (page: Page) => page.getByRole("button", { name: /^Model: / });
const pager = (page: Page) => page.getByTestId("version-pager");
const lastFacts = (page: Page) => page.getByTestId("agent-message").last().getByTestId("reply-facts");
const SCREENS = "test-results/screens";

/** Picks `model` in the composer's Model menu. */
async function pickModel(page: Page, model: string) {
  await modelButton(page).click();
  await page.getByRole("menuitemradio", { name: model }).click();
  await expect(modelButton(page)).toHaveAccessibleName(`Model: ${model}`);
}

/** Opens the last reply's menu and regenerates it with `model` ("Regenerate with…"). */
async function regenerateWith(page: Page, model: string) {
  const reply = page.getByTestId("agent-message").last();
  await reply.hover();
  await reply.getByRole("button", { name: /^Message actions for the reply/ }).click();
  await page.getByRole("menuitem", { name: "Regenerate with…" }).click();
  await page.screenshot({ path: `${SCREENS}/models-regenerate-with.png` });
  await page.getByRole("menuitem", { name: model, exact: true }).click();
}

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
const usd = (amount: number) =>
  new Intl.NumberFormat("en", {
    style: "currency",
    currency: "USD",
    ...(amount < 0.01 ? { maximumSignificantDigits: 2 } : { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
  }).format(amount);

test.describe("models, versions side by side, tokens", () => {
  test("the demo's two models: pick one in the composer, Regenerate with the other, compare them and keep one; Undo", async ({
    chat,
    page,
  }) => {
    await chat.open();
    await expect(modelButton(page)).toHaveAccessibleName("Model: demo");
    await chat.sendMessage("set color to red");
    // The demo counts a word as a token: 4 in the message, 6 in "Done — **color** is now `red`.".
    await expect(lastFacts(page)).toHaveText("Written by demo · 10 tokens");

    await modelButton(page).click();
    await page.screenshot({ path: `${SCREENS}/models-menu.png` });
    await page.keyboard.press("Escape");
    await pickModel(page, "demo-terse");
    await chat.sendMessage("what is color?");
    await expect(chat.agentMessages().last()).toContainText("red");
    await expect(lastFacts(page)).toHaveText("Written by demo-terse · 4 tokens");
    // The chat remembers the model its last turn ran on.
    await page.reload();
    await expect(modelButton(page)).toHaveAccessibleName("Model: demo-terse");

    await regenerateWith(page, "demo");
    await chat.waitForTurnEnd();
    await expect(chat.agentMessages().last()).toContainText("color is red.");
    await expect(lastFacts(page)).toHaveText("Written by demo · 6 tokens");
    await expect(pager(page)).toHaveText("2 / 2");
    await expect(modelButton(page)).toHaveAccessibleName("Model: demo");

    await pager(page).getByRole("button", { name: "Version menu" }).click();
    await page.getByRole("menuitem", { name: "Compare versions" }).click();
    const dialog = page.getByRole("dialog", { name: "Compare versions" });
    const [left, right] = [
      dialog.getByRole("region", { name: /^Left: version 1 of 2/ }),
      dialog.getByRole("region", { name: /^Right: version 2 of 2/ }),
    ];
    await expect(left.getByTestId("compare-facts")).toContainText("demo-terse · 4 tokens");
    await expect(right.getByTestId("compare-facts")).toContainText("demo · 6 tokens");
    await expect(right).toContainText("Shown now");
    // The words only the regenerated reply has are marked on its side.
    await expect(left.locator("del")).toHaveCount(0);
    await expect(right.locator("ins").first()).toHaveText("**color** is ");
    await expect(left.getByRole("combobox", { name: "Left version" })).toHaveValue(/^e-/);
    await page.screenshot({ path: `${SCREENS}/models-compare.png` });

    await left.getByRole("button", { name: "Keep this version" }).click();
    await expect(dialog).toHaveCount(0);
    await expect(pager(page)).toHaveText("1 / 2");
    await expect(lastFacts(page)).toHaveText("Written by demo-terse · 4 tokens");
    await chat.toast("Showing another version").getByRole("button", { name: "Undo" }).click();
    await expect(pager(page)).toHaveText("2 / 2");
    await expect(lastFacts(page)).toHaveText("Written by demo · 6 tokens");
  });

  test("compare opens from History's entry menu and from the map", async ({ chat, page }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    await regenerateWith(page, "demo-terse");
    await chat.waitForTurnEnd();
    await expect(pager(page)).toHaveText("2 / 2");

    await page.getByRole("button", { name: "History" }).click();
    const history = page.getByRole("dialog", { name: "History" });
    await expect(history.getByTestId("chat-usage")).toHaveText(
      `This chat: ${4 + words("color = `red`")} tokens · rewound branches: 10 tokens`,
    );
    await history.getByTestId("version").first().getByRole("button", { name: "Version actions" }).click();
    await page.getByRole("menuitem", { name: "Compare versions" }).click();
    const dialog = page.getByRole("dialog", { name: "Compare versions" });
    await expect(dialog.getByTestId("compare-side")).toHaveCount(2);
    await page.keyboard.press("Escape");
    await expect(dialog).toHaveCount(0);
    // Focus goes back to the compared turn, not to the page's body.
    await expect(pager(page).getByRole("button", { name: "Version menu" })).toBeFocused();

    await page.getByRole("button", { name: "Map" }).click();
    await page.getByRole("dialog", { name: "Map" }).getByRole("button", { name: "Compare versions" }).click();
    await expect(dialog.getByTestId("compare-side")).toHaveCount(2);
    // On a phone the two versions are stacked.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${SCREENS}/models-compare-phone.png` });
  });

  test("a model of the fake endpoint: the one picked is called; each reply's tokens and the chat's totals are what it reported, priced", async ({
    chat,
    page,
  }) => {
    await fakeModel.reset(page.request);
    await chat.open();
    await chat.chooseAgent("team");
    await expect(modelButton(page)).toHaveAccessibleName("Model: fake-model");
    await pickModel(page, "fake-mini");
    await chat.sendMessage("hello models");
    await expect(chat.agentMessages().last()).toContainText("fake-mini here. You said: hello models");
    const [mini] = await fakeModel.requests(page.request);
    expect(mini.body).toMatchObject({ model: "fake-mini", stream_options: { include_usage: true } });
    const miniCost = ((mini.usage?.prompt_tokens ?? 0) * 50 + (mini.usage?.completion_tokens ?? 0) * 200) / 1e6;
    await expect(lastFacts(page)).toHaveText(`Written by fake-mini · ${mini.usage?.total_tokens} tokens · ${usd(miniCost)}`);

    await regenerateWith(page, "fake-model");
    await chat.waitForTurnEnd();
    await expect(chat.agentMessages().last()).toContainText("You said: hello models");
    await expect(pager(page)).toHaveText("2 / 2");
    const [, full] = await fakeModel.requests(page.request);
    expect(full.body.model).toBe("fake-model");
    const fullCost = ((full.usage?.prompt_tokens ?? 0) * 150 + (full.usage?.completion_tokens ?? 0) * 600) / 1e6;
    await expect(lastFacts(page)).toHaveText(`Written by fake-model · ${full.usage?.total_tokens} tokens · ${usd(fullCost)}`);

    await page.screenshot({ path: `${SCREENS}/models-usage-reply.png` });
    await page.getByRole("button", { name: "History" }).click();
    await expect(page.getByTestId("chat-usage")).toHaveText(
      `This chat: ${full.usage?.total_tokens} tokens (${usd(fullCost)}) · rewound branches: ${mini.usage?.total_tokens} tokens (${usd(miniCost)})`,
    );
    await page.screenshot({ path: `${SCREENS}/models-usage-history.png` });
  });
});
