import { rmSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { freePort } from "./support/accounts";
import { startInstance } from "./support/api-client";
import { ChatPage } from "./support/chat-page";
import { POSTGRES_PORT, SHARED_SECRET } from "./support/instances";
import { kagentUi, type Shown, shownAfterReload, shownAfterStream, userMessage } from "./support/kagent-ui";

/**
 * kagent's web UI in front of Retrace (docs/api.md, "kagent's UI"), replayed without kagent (e2e/support/kagent-ui.ts):
 * the requests its server makes and what its chat keeps of them, against the production build on SQLite and on
 * PostgreSQL. Each instance is deployed as kagent's chart deploys its UI: behind oauth2-proxy, which sets
 * `Authorization: Bearer <the IdP's ID token>` and `X-Forwarded-Email`; kagent's UI forwards both
 * (`KAGENT_ADDITIONAL_FORWARDED_HEADERS=X-Forwarded-Email`), and Retrace trusts the second
 * (`RETRACE_TRUSTED_USER_HEADER`).
 */

const DIST_DIR = process.env.E2E_DIST_DIR ?? ".next-e2e";
const NAMESPACE = "kagent";

/** An ID token as oauth2-proxy passes it on: a JWT Retrace did not sign. */
function idToken(email: string): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "RS256", typ: "JWT" })}.${part({ sub: email, email, exp: Math.floor(Date.now() / 1000) + 3600 })}.c2lnbmVkLWJ5LXRoZS1pZHA`;
}

/** One person behind the proxy: the headers it sets on their requests, and kagent's UI serving them. */
function person(base: string) {
  const email = `kay-${crypto.randomUUID().slice(0, 8)}@corp.example`;
  const headers = { authorization: `Bearer ${idToken(email)}`, "x-forwarded-email": email };
  return { email, headers, ui: kagentUi(`${base}/api`, headers, ["X-Forwarded-Email"]) };
}

type Ui = ReturnType<typeof person>["ui"];

const REPLY = { red: "Done — **color** is now `red`.", blue: "Done — **color** is now `blue`." };
const turn = (reply: string): Shown[] => [
  { kind: "tool-call", text: "update_state" },
  { kind: "tool-result", text: "update_state" },
  { kind: "text", text: reply },
];

/** A send from kagent's chat to a chat that exists: the stream, what it leaves on screen, and the message sent. */
async function send(ui: Ui, text: string, sessionId: string) {
  const message = userMessage(text, sessionId);
  const stream = await ui.stream(NAMESPACE, "demo", message);
  // Answered where kagent posts it, with a trailing slash: not redirected, not refused.
  expect({ status: stream.status, redirected: stream.redirected, type: stream.type }).toEqual({
    status: 200,
    redirected: false,
    type: "text/event-stream",
  });
  return { ...stream, message, shown: shownAfterStream(stream.events) };
}

/** What kagent's chat shows of the chat after a reload, without the message ids. */
async function reloaded(ui: Ui, sessionId: string) {
  const tasks = await ui.tasks(sessionId);
  expect(tasks.status).toBe(200);
  return shownAfterReload(tasks.data!).map(({ kind, text }) => ({ kind, text }));
}

for (const database of [
  { name: "SQLite", env: (port: number) => ({ DATABASE_PATH: `.e2e-data-${port}/retrace.db` }) },
  { name: "PostgreSQL", env: () => ({ DATABASE_URL: `postgres://postgres@127.0.0.1:${POSTGRES_PORT}/postgres` }) },
]) {
  test.describe(`kagent's UI in front of Retrace, on ${database.name}`, () => {
    let base = "";
    let stop = () => {};
    test.beforeAll(async () => {
      test.setTimeout(60_000);
      const port = await freePort();
      const app = await startInstance(port, {
        NEXT_DIST_DIR: DIST_DIR,
        AUTH_SECRET: SHARED_SECRET,
        DEMO_WORD_DELAY_MS: "5",
        RETRACE_TRUSTED_USER_HEADER: "X-Forwarded-Email",
        ...database.env(port),
      });
      base = app.base;
      stop = () => {
        app.process.kill("SIGTERM");
        rmSync(`.e2e-data-${port}`, { recursive: true, force: true });
      };
    });
    test.afterAll(() => stop());

    test("a chat made in kagent's UI: sidebar, create, a reply it keeps, reload, rename, share, errors, delete", async () => {
      const { ui } = person(base);
      expect(await ui.sessionsForAgent(NAMESPACE, "demo")).toMatchObject({ status: 200, data: [] });

      const created = await ui.createSession({ agent_ref: `${NAMESPACE}/demo`, name: "New Chat" });
      expect(created).toMatchObject({ status: 201, data: { name: "New Chat", agent: "demo" } });
      const id = created.data!.id;
      expect((await ui.session(id)).data?.session).toMatchObject({ id });

      const first = await send(ui, "set color to red", id);
      expect(first.events[0]).toMatchObject({ kind: "task", contextId: id });
      // kagent's runtime closes a turn so: the reply whole, the last chunk, then the final status update.
      expect(first.events.at(-2)).toMatchObject({
        kind: "artifact-update",
        contextId: id,
        lastChunk: true,
        append: false,
        artifact: { parts: [{ kind: "text", text: REPLY.red }] },
      });
      expect(first.events.at(-1)).toMatchObject({ kind: "status-update", final: true, status: { state: "completed" } });
      // The reply stays on screen when the turn ends, once, and nothing is left streaming.
      expect(first.shown).toEqual({ kept: turn(REPLY.red), streaming: "" });

      // A reload shows what the stream left, and the user's message under the id kagent gave it.
      expect(await reloaded(ui, id)).toEqual([{ kind: "user", text: "set color to red" }, ...turn(REPLY.red)]);
      const [stored] = (await ui.tasks(id)).data!;
      expect(stored.history[0].messageId).toBe(first.message.messageId);
      const followed = await ui.resubscribe(NAMESPACE, "demo", stored.id);
      expect(followed.events).toEqual([
        expect.objectContaining({ kind: "task", id: stored.id, status: expect.objectContaining({ state: "completed" }) }),
      ]);

      // kagent names a chat after its first message by posting it again.
      const renamed = await ui.createSession({ id, agent_ref: `${NAMESPACE}/demo`, name: "set color to red" });
      expect(renamed).toMatchObject({ status: 200, data: { id, name: "set color to red" } });
      expect((await ui.sessionsForAgent(NAMESPACE, "demo")).data).toEqual([expect.objectContaining({ id, name: "set color to red" })]);

      const share = await ui.createShare(id);
      expect(share).toMatchObject({ status: 201, data: { read_only: true, token: expect.stringMatching(/^[\w-]{43}$/) } });
      expect((await ui.listShares(id)).data).toEqual([expect.objectContaining({ read_only: true })]);
      expect(await ui.createShare(id, false)).toEqual({ status: 400, error: "read_only: Retrace's share links are read-only" });

      // What a toast would show.
      expect(await ui.createSession({ agent_ref: `${NAMESPACE}/demo`, name: " " })).toEqual({
        status: 400,
        error: "name: Name must not be empty",
      });
      expect(await ui.createSession({ agent_ref: "other/demo", name: "x" })).toEqual({ status: 422, error: "Unknown agent: other/demo" });

      // Only A2A's paths are answered with their trailing slash: every other keeps Next.js's redirect.
      for (const [path, to] of [
        [`/chat/${id}/`, `/chat/${id}`],
        ["/api/sessions/?limit=1", "/api/sessions?limit=1"],
      ]) {
        const redirect = await fetch(`${base}${path}`, { redirect: "manual" });
        expect([redirect.status, redirect.headers.get("location")]).toEqual([308, to]);
      }

      expect((await ui.deleteSession(id)).status).toBe(200);
      expect((await ui.session(id)).status).toBe(404);
      expect((await ui.sessionsForAgent(NAMESPACE, "demo")).data).toEqual([]);
    });

    test("Retrace's rewind and fork in kagent's UI, and kagent's chat in Retrace's UI: state, files, the version pager", async ({
      browser,
    }) => {
      const { ui, headers } = person(base);
      const id = (await ui.createSession({ agent_ref: `${NAMESPACE}/demo`, name: "Colours" })).data!.id;
      await send(ui, "set color to red", id);
      const blue = await send(ui, "set color to blue", id);
      expect(blue.shown.kept).toEqual(turn(REPLY.blue));
      const [, second] = (await ui.tasks(id)).data!;

      // Rewound in Retrace (its REST API, as the same person behind the proxy): kagent shows the effective history.
      const rest = (method: string, path: string, body?: unknown) =>
        fetch(`${base}/api${path}`, { method, headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) });
      const before = second.metadata.kagent_invocation_id;
      expect((await rest("POST", `/sessions/${id}/rewind`, { rewind_before_invocation_id: before })).status).toBe(200);
      expect(await reloaded(ui, id)).toEqual([{ kind: "user", text: "set color to red" }, ...turn(REPLY.red)]);

      const saved = await send(ui, "save file notes.txt with content hello", id);
      expect(saved.shown.kept.at(-1)).toEqual({ kind: "text", text: "Saved **notes.txt** (version 0)." });
      expect((await reloaded(ui, id)).filter((m) => m.kind === "user").map((m) => m.text)).toEqual([
        "set color to red",
        "save file notes.txt with content hello",
      ]);

      // Forked in Retrace before the file: kagent's sidebar lists the fork, which holds the first turn.
      const [, third] = (await ui.tasks(id)).data!;
      const fork = await (
        await rest("POST", `/sessions/${id}/fork`, { rewind_before_invocation_id: third.metadata.kagent_invocation_id })
      ).json();
      const sidebar = (await ui.sessionsForAgent(NAMESPACE, "demo")).data!;
      expect(sidebar.map((s) => s.id)).toEqual([fork.data.id, id]);
      expect(await reloaded(ui, fork.data.id)).toEqual([{ kind: "user", text: "set color to red" }, ...turn(REPLY.red)]);

      // Retrace's own UI, behind the same proxy, shows the chat made in kagent's UI.
      const context = await browser.newContext({ baseURL: base, extraHTTPHeaders: headers });
      const chat = new ChatPage(await context.newPage());
      await chat.open(`/chat/${id}`);
      await chat.expectUserMessages(["set color to red", "save file notes.txt with content hello"]);
      await expect(chat.userMessage("save file notes.txt").getByRole("group", { name: "Version 2 of 2" })).toHaveText("2 / 2");
      await expect(await chat.stateValue("color")).toContainText("red");
      await expect(chat.fileRow("notes.txt")).toBeVisible();
      await expect(chat.sidebarChat(/^Colours$/)).toBeVisible();
      await expect(chat.sidebarChat(/^Fork of Colours$/)).toBeVisible();
      await context.close();
    });
  });
}
