import { describe, expect, it } from "vitest";
import { Browser, newCredentials } from "./support/accounts";
import { guestWithChat, snapshot } from "./support/api";

describe("email and password", () => {
  it("signing up moves every row of the guest to the new account", async () => {
    const guest = await guestWithChat();
    const browser = new Browser(guest.token);
    const before = await browser.sessions();
    const up = await browser.auth("/sign-up/email", newCredentials());
    expect(up.status, JSON.stringify(up.json)).toBe(200);
    const accountId = up.json.user.id as string;
    expect(await browser.sessions()).toEqual(before);
    const rows = await snapshot();
    expect(JSON.stringify(rows)).not.toContain(guest.user_id);
    expect(accountId).not.toBe(guest.user_id);
  });
});
