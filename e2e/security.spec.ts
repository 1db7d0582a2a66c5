import { expect, test } from "./support/fixtures";

test("server actions refuse cross-origin calls and change nothing", async ({ chat, page }) => {
  await chat.open();
  await chat.sendMessage("hello security");
  const id = chat.sessionId();
  const captured = page.waitForRequest((r) => r.method() === "POST" && Boolean(r.headers()["next-action"]));
  await chat.sidebarChat(/hello security/).hover();
  await page.getByRole("button", { name: "Chat actions" }).first().click();
  await page.getByRole("menuitem", { name: "Rename" }).click();
  await page.getByRole("textbox", { name: "Chat name" }).fill("Renamed once");
  await page.getByRole("textbox", { name: "Chat name" }).press("Enter");
  await expect(chat.sidebarChat("Renamed once")).toBeVisible();
  const action = await captured;
  const headers = action.headers();
  const replay = (origin: string, name: string) =>
    page.request.post(action.url(), {
      headers: { "next-action": headers["next-action"], "content-type": headers["content-type"], accept: headers.accept, origin },
      data: action.postData()!.replace("Renamed once", name),
    });
  const name = async () => (await (await page.request.get(`/api/sessions/${id}?include_events=false`)).json()).data.session.name;

  const evil = await replay("http://evil.example", "Hijacked");
  expect(evil.ok()).toBe(false);
  expect(await name()).toBe("Renamed once");

  const same = await replay(new URL(page.url()).origin, "Renamed twice");
  expect(same.ok()).toBe(true);
  expect(await name()).toBe("Renamed twice");
});
