import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { issueToken } from "@/lib/accounts/guest-token";
import { getDb } from "@/lib/db/connection";
import { ROW_BYTES } from "@/lib/db/tx/bytes";
import { Browser, newCredentials } from "./support/accounts";
import { ownedBy, richGuest, rowsMentioning, writeUserData } from "./support/accounts-data";
import { call, guestWithChat, routes, snapshot } from "./support/api";
import { countedBytesOf } from "./support/bytes";

/** A signed-up account with chats, `user:` state and a `user:notes.txt` of two versions; and its credentials. */
async function accountWithData() {
  const credentials = newCredentials("Grace Hopper");
  const device = new Browser();
  const up = await device.auth("/sign-up/email", credentials);
  expect(up.status).toBe(200);
  const created = await device.api(routes.sessions.POST, { method: "POST", body: { name: "Account chat" } });
  await writeUserData({ headers: { cookie: device.header() } }, created.json.data.id, { "user:color": "green" }, [
    "account v0",
    "account v1",
  ]);
  return { credentials, accountId: up.json.user.id as string, chatId: created.json.data.id as string };
}

async function userRow(id: string) {
  return (await getDb()).one<{ activity: number; stored_bytes: number }>(sql`SELECT activity, stored_bytes FROM users WHERE id = ${id}`);
}

async function fileVersions(scope: string) {
  return (await getDb()).all<{ version: number; data: Buffer }>(
    sql`SELECT version, data FROM artifacts WHERE scope = ${scope} AND filename = 'user:notes.txt' ORDER BY version`,
  );
}

describe("a sign-in upgrades the guest: every row moves to the account, in one transaction", () => {
  it("sign-up (a new account): chats, forks, tombstones, turns, files, state and counters move; nothing is left; a bystander is untouched", async () => {
    const bystander = await richGuest("red");
    const theirs = await ownedBy(bystander.user_id);
    const guest = await richGuest();
    const guestRow = await userRow(guest.user_id);
    const mentions = await rowsMentioning(guest.user_id);
    const browser = new Browser(guest.token);
    const up = await browser.auth("/sign-up/email", newCredentials());
    expect(up.status).toBe(200);
    const accountId = up.json.user.id as string;

    expect(await rowsMentioning(guest.user_id)).toEqual({});
    expect(await ownedBy(bystander.user_id)).toEqual(theirs);
    const db = await getDb();
    const sessions = await db.all<{ id: string; user_id: string }>(sql`SELECT id, user_id FROM sessions WHERE user_id = ${accountId}`);
    expect(sessions.map((s) => s.id).sort()).toEqual((mentions.sessions as { id: string }[]).map((s) => s.id).sort());
    expect(sessions.map((s) => s.id)).toEqual(expect.arrayContaining([guest.sessionId, guest.forkId, guest.tombstoneId]));
    expect(await userRow(accountId)).toEqual(guestRow);
    expect((await fileVersions(`user/${accountId}/demo`)).map((f) => f.data.toString())).toEqual(["guest blue", "guest second"]);

    // The account sees the chat, its turns, state and files as the guest did.
    const session = await browser.api(routes.session.GET, { params: { id: guest.sessionId } });
    expect(session.json.data.session.state).toMatchObject({ color: "blue", "user:color": "blue", "user:guest_only": 1 });
    const tasks = await browser.api(routes.tasks.GET, { params: { id: guest.sessionId } });
    expect(tasks.json.data).toHaveLength(3);
    const file = await browser.api(routes.artifactFile.GET, { params: { id: guest.sessionId, filename: "notes.txt" } });
    expect(file.text).toBe("hi");
  });

  it("signing in to an existing account merges: the account's state wins, files append, chats by when last active, bytes add up", async () => {
    const { credentials, accountId, chatId } = await accountWithData();
    const accountBefore = await userRow(accountId);
    const guest = await richGuest("blue");
    const guestBefore = await userRow(guest.user_id);
    const guestChats = (await call(routes.sessions.GET, { token: guest.token })).json.data.map((s: { id: string }) => s.id);

    const browser = new Browser(guest.token);
    const signedIn = await browser.auth("/sign-in/email", { email: credentials.email, password: credentials.password });
    expect(signedIn.status).toBe(200);
    expect(await rowsMentioning(guest.user_id)).toEqual({});

    // Chats: by when each was last active (the guest's are newer here), a total order.
    expect(await browser.sessions()).toEqual([...guestChats, chatId]);
    // State: a key both had keeps the account's value; the guest's other keys arrive.
    const state = (await browser.api(routes.session.GET, { params: { id: chatId } })).json.data.session.state;
    expect(state).toMatchObject({ "user:color": "green", "user:guest_only": 1 });
    // Files: the account's versions stay 0..1; the guest's follow as 2..3.
    const versions = await fileVersions(`user/${accountId}/demo`);
    expect(versions.map((v) => [v.version, v.data.toString()])).toEqual([
      [0, "account v0"],
      [1, "account v1"],
      [2, "guest blue"],
      [3, "guest second"],
    ]);
    // Bytes add up, less the bytes of the guest's `user:color`, which the account's value replaced; the activity clock is the later one.
    const after = await userRow(accountId);
    const replaced = ROW_BYTES + Buffer.byteLength("user:color") + Buffer.byteLength('"blue"');
    expect(after).toEqual({
      activity: Math.max(Number(accountBefore?.activity), Number(guestBefore?.activity)),
      stored_bytes: Number(accountBefore?.stored_bytes) + Number(guestBefore?.stored_bytes) - replaced,
    });
    const { counted, books } = await countedBytesOf(await getDb(), accountId);
    expect(counted).toBe(books);
  });

  it("chats of the two devices last active in the same millisecond stay a total order", async () => {
    const { credentials, accountId, chatId } = await accountWithData();
    const guest = await guestWithChat();
    const db = await getDb();
    const [account] = await db.all<{ activity: number }>(sql`SELECT activity FROM sessions WHERE id = ${chatId}`);
    await db.run(sql`UPDATE sessions SET activity = ${account.activity} WHERE id = ${guest.sessionId}`);
    const browser = new Browser(guest.token);
    expect((await browser.auth("/sign-in/email", { email: credentials.email, password: credentials.password })).status).toBe(200);
    const rows = await db.all<{ id: string; activity: number }>(sql`SELECT id, activity FROM sessions WHERE user_id = ${accountId}`);
    expect(rows.map((r) => r.id).sort()).toEqual([chatId, guest.sessionId].sort());
    expect(new Set(rows.map((r) => Number(r.activity))).size).toBe(2);
    expect(Math.min(...rows.map((r) => Number(r.activity)))).toBe(Number(account.activity) - 1);
    expect((await browser.sessions()).sort()).toEqual([chatId, guest.sessionId].sort());
  });

  it("a forged, tampered or expired guest token refuses the sign-in and changes nothing", async () => {
    const { credentials } = await accountWithData();
    const guest = await guestWithChat();
    const [header, payload] = guest.token.split(".");
    const other = JSON.parse(Buffer.from(payload, "base64url").toString());
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...other, sub: crypto.randomUUID() })).toString("base64url")}.${guest.token.split(".")[2]}`;
    for (const token of [tampered, `${guest.token.slice(0, -2)}xx`, "not-a-token"]) {
      const before = await snapshot();
      const browser = new Browser(token);
      const refused = await browser.auth("/sign-in/email", { email: credentials.email, password: credentials.password });
      expect({ status: refused.status, code: refused.json.code }).toEqual({ status: 401, code: "INVALID_GUEST" });
      expect(browser.cookies.has("retrace.session_token")).toBe(false);
      expect(await snapshot()).toEqual(before);
    }
  });

  it("a guest token naming an account is refused (409) and changes nothing", async () => {
    const { credentials, accountId } = await accountWithData();
    const other = await accountWithData();
    const before = await snapshot();
    const browser = new Browser(await issueToken(accountId));
    const refused = await browser.auth("/sign-in/email", { email: other.credentials.email, password: other.credentials.password });
    expect({ status: refused.status, code: refused.json.code }).toEqual({ status: 409, code: "GUEST_IS_ACCOUNT" });
    expect(await snapshot()).toEqual(before);
    expect(credentials.email).not.toBe(other.credentials.email);
  });

  it("while a turn runs in one of the guest's chats the sign-in is refused (409) and nothing moves", async () => {
    const { credentials } = await accountWithData();
    const guest = await guestWithChat();
    const db = await getDb();
    await db.run(
      sql`UPDATE sessions SET turn_task_id = 'running', turn_lease_until = ${Date.now() + 60_000} WHERE id = ${guest.sessionId}`,
    );
    const before = await snapshot();
    const refused = await new Browser(guest.token).auth("/sign-in/email", { email: credentials.email, password: credentials.password });
    expect({ status: refused.status, code: refused.json.code }).toEqual({ status: 409, code: "SESSION_BUSY" });
    expect(await snapshot()).toEqual(before);
  });

  it("the chats are there on another device, and after signing out the browser is a new, empty guest", async () => {
    const credentials = newCredentials();
    const guest = await guestWithChat();
    const laptop = new Browser(guest.token);
    expect((await laptop.auth("/sign-up/email", credentials)).status).toBe(200);
    const phone = new Browser((await call(routes.guest.POST, { method: "POST" })).json.data.token);
    expect(await phone.sessions()).toEqual([]);
    expect((await phone.auth("/sign-in/email", { email: credentials.email, password: credentials.password })).status).toBe(200);
    expect(await phone.sessions()).toEqual([guest.sessionId]);

    const out = await laptop.auth("/sign-out", {});
    expect(out.status).toBe(200);
    expect([...laptop.cookies.keys()]).toEqual([]);
    expect((await laptop.api(routes.sessions.GET)).status).toBe(401);
  });

  it("a refused sign-up writes nothing — a forged guest token (401), a guest id that is an account (409), a running reply (409) — and its retry succeeds", async () => {
    const guest = await guestWithChat();
    const credentials = newCredentials();
    const db = await getDb();
    const [header, payload, signature] = guest.token.split(".");
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: crypto.randomUUID() })).toString("base64url")}.${signature}`;
    const { accountId } = await accountWithData();
    const busy = async (running: boolean) =>
      db.run(sql`
        UPDATE sessions SET turn_task_id = ${running ? "running" : null}, turn_lease_until = ${running ? Date.now() + 60_000 : null}
        WHERE id = ${guest.sessionId}`);
    await busy(true);
    const before = await snapshot();
    for (const [token, status, code] of [
      [forged, 401, "INVALID_GUEST"],
      [await issueToken(accountId), 409, "GUEST_IS_ACCOUNT"],
      [guest.token, 409, "SESSION_BUSY"],
    ] as const) {
      const browser = new Browser(token);
      const refused = await browser.auth("/sign-up/email", credentials);
      expect({ status: refused.status, code: refused.json.code }).toEqual({ status, code });
      expect(browser.cookies.has("retrace.session_token")).toBe(false);
      expect(await snapshot()).toEqual(before);
    }
    await busy(false);
    const browser = new Browser(guest.token);
    const retried = await browser.auth("/sign-up/email", credentials);
    expect(retried.status).toBe(200);
    expect(await browser.sessions()).toEqual([guest.sessionId]);
  });

  it.each([
    ["sign-up", "auth_users"],
    ["sign-up", "auth_sessions"],
    ["sign-in", "auth_sessions"],
  ])(
    "a reply that starts between the checks and the move (%s, as %s is written): refused, and the account it made or the session is gone",
    async (way, table) => {
      const existing = way === "sign-in" ? (await accountWithData()).credentials : null;
      const guest = await guestWithChat();
      const db = await getDb();
      const starts = sql.raw(`
      UPDATE sessions SET turn_task_id = 'started', turn_lease_until = ${Date.now() + 60_000} WHERE id = '${guest.sessionId}'`);
      // The reply starts as the account's (or its session's) row is written: after the checks, before the guest moves.
      if (db.dialect.name === "sqlite") {
        await db.run(sql`CREATE TEMP TRIGGER reply_starts AFTER INSERT ON ${sql.raw(table)} BEGIN ${starts}; END`);
      } else {
        await db.run(sql`CREATE FUNCTION reply_starts() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${starts}; RETURN NEW; END $$`);
        await db.run(sql`CREATE TRIGGER reply_starts AFTER INSERT ON ${sql.raw(table)} FOR EACH ROW EXECUTE FUNCTION reply_starts()`);
      }
      try {
        process.env.RETRACE_SIGNUP = "invite";
        const credentials = newCredentials();
        await db.run(
          sql`INSERT INTO invites (email, created_at, expires_at) VALUES (${credentials.email}, ${Date.now()}, ${Date.now() + 60_000})`,
        );
        const before = await snapshot();
        const browser = new Browser(guest.token);
        const refused = existing
          ? await browser.auth("/sign-in/email", { email: existing.email, password: existing.password })
          : await browser.auth("/sign-up/email", credentials);
        expect({ status: refused.status, code: refused.json.code }).toEqual({ status: 409, code: "SESSION_BUSY" });
        expect([...browser.cookies.keys()]).toEqual(["retrace_token"]);
        const after = await snapshot();
        expect({ ...after, sessions: before.sessions }).toEqual(before);
      } finally {
        delete process.env.RETRACE_SIGNUP;
        await db.run(sql.raw(db.dialect.name === "sqlite" ? "DROP TRIGGER reply_starts" : `DROP TRIGGER reply_starts ON ${table}`));
        if (db.dialect.name !== "sqlite") await db.run(sql`DROP FUNCTION reply_starts()`);
      }
    },
  );
});
