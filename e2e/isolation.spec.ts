import { expect, test } from "./support/fixtures";

test("two guests never see each other's chats, in the UI or through the API", async ({ chat, otherChat }) => {
  await chat.open();
  await chat.sendMessage("a secret for user one");
  const id = chat.sessionId();

  await otherChat.open();
  await expect(otherChat.sidebarChat(/a secret for user one/)).toHaveCount(0);
  await otherChat.page.goto(`/chat/${id}`);
  await expect(otherChat.page.getByText("a secret for user one")).toHaveCount(0);
  await expect(otherChat.page.getByText(/not found/i).first()).toBeVisible();

  for (const path of [`/api/sessions/${id}`, `/api/sessions/${id}/events`, `/api/sessions/${id}/tasks`, `/api/sessions/${id}/artifacts`]) {
    const response = await otherChat.page.request.get(path);
    expect(response.status(), path).toBe(404);
    expect(await response.json()).toMatchObject({ code: "not_found" });
  }
  const rewind = await otherChat.page.request.post(`/api/sessions/${id}/fork`, { data: {} });
  expect(rewind.status()).toBe(404);
  const list = await otherChat.page.request.get("/api/sessions");
  expect(JSON.stringify(await list.json())).not.toContain(id);

  const mine = await chat.page.request.get(`/api/sessions/${id}`);
  expect(mine.status()).toBe(200);
});
