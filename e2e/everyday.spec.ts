import { expect, test } from "./support/fixtures";

test.describe("everyday use", () => {
  test("the app has a favicon: at /favicon.ico, where browsers look first, and named by the page", async ({ chat, page }) => {
    await chat.open();
    const icon = await page.request.get("/favicon.ico");
    expect(icon.status()).toBe(200);
    expect(icon.headers()["content-type"]).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon)/);
    expect((await icon.body()).subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0]));
    await expect(page.locator('head link[rel="icon"][href^="/favicon.ico"]')).toHaveCount(1);
  });

  test("the Undo toast stays 10 s, waits while hovered or focused, and covers neither the header nor the composer", async ({
    chat,
    page,
  }) => {
    await page.clock.install();
    await chat.open();
    await chat.sendMessage("set color to red");
    await chat.sendMessage("set color to blue");
    await chat.messageAction("set color to blue", "Rewind to here");
    const toast = chat.toast(/Rewound 1 turn/);
    await expect(toast).toBeVisible();
    const [a, b] = [(await toast.boundingBox())!, (await chat.composer.boundingBox())!];
    expect(a.y + a.height <= b.y || b.y + b.height <= a.y).toBe(true);
    // Once it has slid in, the header's controls (the rewound-turns switch, History) stay clickable.
    const header = (await page.locator("header").first().boundingBox())!;
    await expect.poll(async () => (await toast.boundingBox())!.y).toBeGreaterThanOrEqual(header.y + header.height);

    await page.clock.fastForward(8_000);
    await expect(toast).toBeVisible();
    await toast.hover();
    await page.clock.fastForward(30_000);
    await expect(toast).toBeVisible();
    await chat.composer.hover();
    await page.clock.fastForward(2_500);
    await expect(toast).toHaveCount(0);

    await chat.messageAction("set color to red", "Rewind to here");
    const second = chat.toast(/Rewound 1 turn/);
    await second.getByRole("button", { name: "Undo" }).focus();
    await page.clock.fastForward(30_000);
    await expect(second).toBeVisible();
    await chat.composer.focus();
    await page.clock.fastForward(10_500);
    await expect(second).toHaveCount(0);
  });

  test("Copy on messages, and code blocks with their language, highlighting and Copy code", async ({ chat, page, context }) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    const clipboard = () => page.evaluate(() => navigator.clipboard.readText());
    await chat.open();
    const source = "save file hello.md with content Here:\n```python\nprint('hi')\n```";
    await chat.sendMessage(source);
    await chat.sendMessage("load file hello.md");

    await chat.userMessage("save file hello.md").hover();
    await chat.userMessage("save file hello.md").getByRole("button", { name: "Copy" }).click();
    await expect(chat.userMessage("save file hello.md").getByRole("button", { name: "Copied" })).toBeVisible();
    expect(await clipboard()).toBe(source);

    const reply = chat.agentMessages().last();
    await reply.hover();
    await reply.getByRole("button", { name: /^Copy the reply to/ }).click();
    expect(await clipboard()).toContain("Here is **hello.md** (version 0):");

    const block = reply.getByTestId("code-block");
    await expect(block).toContainText("python");
    await expect(block.locator("code [class^='hljs-']").first()).toBeVisible();
    await block.getByRole("button", { name: "Copy code" }).click();
    await expect(block.getByRole("button", { name: "Copied" })).toBeVisible();
    expect((await clipboard()).trim()).toBe("print('hi')");
  });

  test("a file a rewind brought back shows the version the user saw, marked restored, like its chip", async ({ chat }) => {
    await chat.open();
    await chat.sendMessage("save file notes.txt with content first");
    await chat.sendMessage("save file notes.txt with content second");
    const chips = chat.agentMessages().getByRole("link", { name: /notes\.txt/ });
    await expect(chips).toHaveText(["notes.txt · v0", "notes.txt · v1"]);
    await expect(chat.fileRow("notes.txt")).toHaveAccessibleName("notes.txt v1");

    await chat.messageAction("content second", "Rewind to here");
    await expect(chat.fileRow("notes.txt")).toHaveAccessibleName("notes.txt v0 · restored");
    await expect(chips).toHaveText(["notes.txt · v0"]);

    await chat
      .toast(/Rewound 1 turn/)
      .getByRole("button", { name: "Undo" })
      .click();
    await expect(chat.fileRow("notes.txt")).toHaveAccessibleName("notes.txt v1 · restored");
    await expect(chips).toHaveText(["notes.txt · v0", "notes.txt · v1"]);
  });

  test("the edit box: Escape cancels, Shift+Enter is a new line, Enter sends", async ({ chat, page }) => {
    await chat.open();
    await chat.sendMessage("set color to red");
    await chat.sendMessage("set color to blue");
    const editor = page.getByRole("textbox", { name: "Edit message" });

    await chat.messageAction("set color to blue", "Edit & resend");
    await editor.fill("set color to green");
    await editor.press("Escape");
    await expect(editor).toHaveCount(0);
    await chat.expectUserMessages(["set color to red", "set color to blue"]);

    await chat.messageAction("set color to blue", "Edit & resend");
    await editor.fill("set color to");
    await editor.press("Shift+Enter");
    await editor.pressSequentially("green");
    await expect(editor).toHaveValue("set color to\ngreen");
    await editor.press("Enter");
    await chat.waitForTurnEnd();
    await expect(chat.userMessages()).toHaveText(["set color to red", /^set color to\s+green/]);
    await expect(await chat.stateValue("color")).toContainText("green");
  });

  test("the tab, header and sidebar show the chat's current name, also after a rewind removed its first message", async ({
    chat,
    page,
  }) => {
    await chat.open();
    await expect(page).toHaveTitle("Retrace");
    await chat.sendMessage("alpha one");
    await chat.sendMessage("beta two");
    await expect(page).toHaveTitle("alpha one");
    await expect(chat.heading).toHaveText("alpha one");
    await expect(chat.sidebarChat("alpha one")).toBeVisible();
    await chat.messageAction("alpha one", "Rewind to here");
    await expect(page).toHaveTitle("New chat");
    await expect(chat.heading).toHaveText("New chat");
    await expect(chat.sidebarChat("New chat")).toBeVisible();

    await chat.composer.fill("gamma three");
    await chat.send.click();
    await chat.waitForTurnEnd();
    await expect(page).toHaveTitle("gamma three");
    await expect(chat.heading).toHaveText("gamma three");
    await expect(chat.sidebarChat("gamma three")).toBeVisible();
    await page.reload();
    await expect(page).toHaveTitle("gamma three");
  });

  test("a favicon and no 404 on the page; full chat names on hover", async ({ chat, page }) => {
    const missing: string[] = [];
    page.on("response", (r) => {
      if (r.status() === 404) missing.push(r.url());
    });
    await chat.open();
    const name = "remember the long name of this chat now";
    await chat.sendMessage(name);
    await page.reload();
    await expect(chat.composer).toBeEditable();
    const href = await page.locator('link[rel="icon"]').first().getAttribute("href");
    const icon = await page.request.get(href!);
    expect(icon.status()).toBe(200);
    expect(icon.headers()["content-type"]).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon|svg\+xml)/);
    expect(missing).toEqual([]);

    const link = chat.sidebarChat(name);
    await expect(link).toHaveAttribute("title", name);
    expect(await link.evaluate((e) => e.scrollWidth > e.clientWidth)).toBe(true);
  });

  test("the theme is Light, Dark or System", async ({ chat, page }) => {
    const html = page.locator("html");
    const choose = async (theme: string) => {
      await page.getByRole("button", { name: "Theme" }).click();
      await page.getByRole("menuitemradio", { name: theme }).click();
    };
    await page.emulateMedia({ colorScheme: "light" });
    await chat.open();
    await choose("Dark");
    await expect(html).toHaveClass(/\bdark\b/);
    await page.reload();
    await expect(html).toHaveClass(/\bdark\b/);
    await choose("Light");
    await expect(html).not.toHaveClass(/\bdark\b/);
    await choose("System");
    await expect(html).not.toHaveClass(/\bdark\b/);
    await page.emulateMedia({ colorScheme: "dark" });
    await expect(html).toHaveClass(/\bdark\b/);
    await page.getByRole("button", { name: "Theme" }).click();
    await expect(page.getByRole("menuitemradio", { name: "System" })).toBeChecked();
  });
});
