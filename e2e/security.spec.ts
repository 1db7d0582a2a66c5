import type { Page } from "@playwright/test";
import { guestToken, instance } from "./support/api-client";
import type { ChatPage } from "./support/chat-page";
import { expect, test } from "./support/fixtures";
import { INSTANCE_A } from "./support/instances";
import { otherOrigin } from "./support/other-origin";

/** Renames the chat through the UI and returns the server-action request the browser sent, once answered. */
async function renameChat(chat: ChatPage, from: RegExp, to: string) {
  const { page } = chat;
  const captured = page.waitForRequest((r) => r.method() === "POST" && Boolean(r.headers()["next-action"]));
  await chat.sidebarChat(from).hover();
  await page.getByRole("button", { name: "Chat actions" }).first().click();
  await page.getByRole("menuitem", { name: "Rename" }).click();
  await page.getByRole("textbox", { name: "Chat name" }).fill(to);
  await page.getByRole("textbox", { name: "Chat name" }).press("Enter");
  await expect(chat.sidebarChat(to)).toBeVisible();
  // The sidebar shows the new name at once; the action itself may still be running.
  const action = await captured;
  await action.response();
  return action;
}

/** What the API says the victim has: every chat with its name, state and number of events. */
async function everything(page: Page) {
  const sessions = (await (await page.request.get("/api/sessions")).json()).data as { id: string; name: string }[];
  return Promise.all(
    sessions.map(async ({ id, name }) => {
      const { data } = await (await page.request.get(`/api/sessions/${id}`)).json();
      return { id, name, state: data.session.state, events: data.events.length };
    }),
  );
}

test("server actions refuse cross-origin calls and change nothing", async ({ chat, page }) => {
  await chat.open();
  await chat.sendMessage("hello security");
  const id = chat.sessionId();
  const action = await renameChat(chat, /hello security/, "Renamed once");
  const headers = action.headers();
  const replay = (origin: string, name: string) =>
    page.request.post(action.url(), {
      headers: { "next-action": headers["next-action"], "content-type": headers["content-type"], accept: headers.accept, origin },
      data: action.postData()!.replace("Renamed once", name),
    });
  const name = async () => (await (await page.request.get(`/api/sessions/${id}?include_events=false`)).json()).data.session.name;

  const evil = await replay("http://evil.example", "Hijacked");
  expect({ status: evil.status(), body: await evil.json() }).toMatchObject({ status: 403, body: { code: "cross_origin" } });
  expect(await name()).toBe("Renamed once");

  const same = await replay(new URL(page.url()).origin, "Renamed twice");
  expect(same.ok()).toBe(true);
  expect(await name()).toBe("Renamed twice");
});

test("a page on another port of this host cannot use the victim's cookie on the REST or A2A routes", async ({ chat, page, baseURL }) => {
  await chat.open();
  await chat.sendMessage("set color to red");
  const id = chat.sessionId();
  const before = await everything(page);

  const message = {
    kind: "message",
    messageId: "evil",
    role: "user",
    parts: [{ kind: "text", text: "set color to hacked" }],
    contextId: id,
  };
  const attempts = [
    ["create a chat", "/api/sessions", { name: "Planted" }],
    ["send an A2A message", "/api/a2a/demo", { jsonrpc: "2.0", id: 1, method: "message/send", params: { message } }],
    ["post events", `/api/sessions/${id}/events`, { invocation_id: "evil", author: "user", actions: { state_delta: { color: "hacked" } } }],
  ];
  const site = await otherOrigin(`<!doctype html><title>Other origin</title><h1>A harmless-looking page</h1>
    <form id="form" method="post" enctype="text/plain" target="sink" action="${baseURL}/api/sessions"><input name='{"name":"Planted by a form","x":"' value='"}'></form>
    <iframe name="sink" title="sink"></iframe>
    <script>
      window.attack = async () => {
        const results = [];
        for (const [name, path, body] of ${JSON.stringify(attempts)}) {
          for (const type of ["text/plain", "application/json"]) {
            try {
              const init = { method: "POST", credentials: "include", headers: { "content-type": type }, body: JSON.stringify(body) };
              // text/plain is a "simple" request: sent without asking; JSON needs CORS approval first.
              const response = await fetch("${baseURL}" + path, { ...init, mode: type === "text/plain" ? "no-cors" : "cors" });
              results.push(name + " as " + type + ": " + (response.type === "opaque" ? "sent" : "read " + response.status));
            } catch {
              results.push(name + " as " + type + ": blocked by the browser");
            }
          }
        }
        return results;
      };
    </script>`);
  // What the server answered each request that reached it (Playwright sees even opaque responses).
  const answered: { method: string; url: string; status: number }[] = [];
  page.on("response", (response) => {
    const request = response.request();
    if (request.url().startsWith(`${baseURL}/api/`)) {
      answered.push({ method: request.method(), url: request.url().slice(baseURL!.length), status: response.status() });
    }
  });
  try {
    await page.goto(site.url);
    const results = await page.evaluate(() => (window as unknown as { attack: () => Promise<string[]> }).attack());
    expect(results).toEqual([
      "create a chat as text/plain: sent",
      "create a chat as application/json: blocked by the browser",
      "send an A2A message as text/plain: sent",
      "send an A2A message as application/json: blocked by the browser",
      "post events as text/plain: sent",
      "post events as application/json: blocked by the browser",
    ]);
    const formAnswer = page.waitForResponse((r) => r.url() === `${baseURL}/api/sessions` && r.request().resourceType() === "document");
    await page.locator("#form").evaluate((form: HTMLFormElement) => form.submit());
    expect(await (await formAnswer).json()).toMatchObject({ code: "cross_origin" });
  } finally {
    await site.close();
  }
  // Every forged request that reached the server carried the cookie (without it: a 401) and was
  // refused for its origin.
  const posts = answered.filter((a) => a.method === "POST");
  expect(posts.map((a) => a.url)).toEqual(["/api/sessions", "/api/a2a/demo", `/api/sessions/${id}/events`, "/api/sessions"]);
  expect(posts.map((a) => a.status)).toEqual([403, 403, 403, 403]);
  expect(answered.every((a) => a.status >= 400 || a.method === "OPTIONS")).toBe(true);

  // The server refuses a foreign Origin on its own, whatever the browser would have allowed.
  for (const [, path, body] of attempts) {
    const forged = await page.request.post(path as string, { headers: { origin: new URL(site.url).origin }, data: body });
    expect({ path, status: forged.status() }).toEqual({ path, status: 403 });
  }
  expect(await everything(page)).toEqual(before);

  // The app itself still works.
  await chat.open(`/chat/${id}`);
  await chat.sendMessage("set color to green");
  await expect(await chat.stateValue("color")).toContainText("green");
});

test("pages send security headers and the app runs under its CSP without violations", async ({ chat, page }) => {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { violations: string[] }).violations = seen;
    document.addEventListener("securitypolicyviolation", (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const console: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) console.push(m.text());
  });
  const response = await page.goto("/");
  const headers = response!.headers();
  expect(headers["content-security-policy"]).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]{20,}' 'strict-dynamic'/);
  expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(headers["content-security-policy"]).toContain("object-src 'none'");
  expect(headers).toMatchObject({ "x-content-type-options": "nosniff", "referrer-policy": "same-origin", "x-frame-options": "DENY" });
  expect(headers["x-powered-by"]).toBeUndefined();

  await chat.open();
  await page.getByRole("button", { name: "Theme" }).click();
  await page.getByRole("menuitemradio", { name: "Dark" }).click();
  await chat.sendMessage("set color to red");
  await chat.sendMessage("save file notes.txt with content hi");
  await chat.messageAction("save file", "Rewind to here");
  await expect(chat.userMessages()).toHaveCount(1);
  await page.reload();
  // next-themes' inline script (it carries the nonce) sets the theme before the page paints.
  await expect(page.locator("html")).toHaveClass(/\bdark\b/);
  await expect(chat.composer).toBeEditable();
  await expect(await chat.stateValue("color")).toContainText("red");
  await page.screenshot({ path: "test-results/security-csp.png" });
  expect(await page.evaluate(() => (window as unknown as { violations: string[] }).violations)).toEqual([]);
  expect(console).toEqual([]);

  // Markup an XSS would smuggle into a page (an inline script, an inline handler) does not run.
  await page.route(`**/chat/${chat.sessionId()}`, async (route) => {
    const response = await route.fetch();
    const injected = `<script>window.injected = "script"</script><img src="/nope" onerror="window.injected = 'handler'">`;
    await route.fulfill({ response, body: (await response.text()).replace("</body>", `${injected}</body>`) });
  });
  await page.reload();
  await expect(chat.composer).toBeEditable();
  expect(await page.evaluate(() => (window as unknown as { injected?: string }).injected ?? "nothing ran")).toBe("nothing ran");
  expect(await page.evaluate(() => (window as unknown as { violations: string[] }).violations)).toEqual([
    expect.stringMatching(/^script-src-elem /),
    expect.stringMatching(/^script-src-attr /),
  ]);

  const cookie = (await page.context().cookies()).find((c) => c.name === "retrace_token")!;
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", secure: false });
  expect(cookie.expires - Date.now() / 1000).toBeGreaterThan(29.9 * 24 * 3600);
  expect(cookie.expires - Date.now() / 1000).toBeLessThanOrEqual(30 * 24 * 3600);
});

test("an HTML file shared with files ticked is served sandboxed: it cannot run or send the reader anywhere, on every instance", async ({
  page,
  baseURL,
}) => {
  const html =
    '<html><head><title>harmless</title><meta http-equiv="refresh" content="0;url=/?phished"></head>' +
    '<body><p>a file</p><script>document.title = "ran"; location.href = "/?phished";</script></body></html>';
  for (const base of [baseURL as string, INSTANCE_A]) {
    const owner = instance(base, await guestToken(base));
    const { body } = await owner.json<{ data: { id: string } }>("POST", "/api/sessions", { name: "Files" });
    const id = body.data.id;
    const saved = await owner.json("POST", `/api/sessions/${id}/artifacts`, { filename: "page.html", mime_type: "text/html", text: html });
    expect(saved.status).toBe(201);
    await owner.json("POST", `/api/sessions/${id}/events`, [
      {
        invocation_id: "e-1",
        author: "user",
        content: { parts: [{ text: "see page.html" }] },
        actions: { artifact_delta: { "page.html": 0 } },
      },
    ]);
    const shared = await owner.json<{ data: { url: string } }>("POST", `/api/sessions/${id}/shares`, { include_files: true });
    const file = `${base}${new URL(shared.body.data.url).pathname}/files/page.html`;

    const response = await page.goto(file);
    await page.waitForTimeout(1000);
    expect([page.url(), await page.title()]).toEqual([file, "harmless"]);
    await expect(page.getByText("a file")).toBeVisible();
    expect(response?.status()).toBe(200);
    expect(response?.headers()).toMatchObject({ "content-security-policy": "sandbox", "x-content-type-options": "nosniff" });
  }
});

test("unknown /api paths answer a JSON 404 to every method", async ({ page }) => {
  for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"]) {
    const response = await page.request.fetch("/api/no/such/route", {
      method,
      data: method === "GET" || method === "HEAD" ? undefined : {},
    });
    expect({ method, status: response.status(), type: response.headers()["content-type"] }).toEqual({
      method,
      status: 404,
      type: "application/json",
    });
    if (method !== "HEAD") expect(await response.json()).toMatchObject({ code: "not_found" });
  }
});

test("server actions answer a 4xx, never a 500, to malformed, too deep or oversized bodies", async ({ chat, page }) => {
  await chat.open();
  await chat.sendMessage("hello actions");
  const action = await renameChat(chat, /hello actions/, "Kept name");
  const before = await everything(page);
  const headers = action.headers();
  const send = (data: string | Buffer, contentType = headers["content-type"]) =>
    page.request.post(action.url(), {
      headers: {
        "next-action": headers["next-action"],
        "content-type": contentType,
        accept: headers.accept,
        origin: new URL(page.url()).origin,
      },
      data,
    });
  const cases: [string, string | Buffer, string | undefined, number][] = [
    ["malformed JSON", action.postData()!.slice(0, -3), undefined, 400],
    ["not JSON", "zzz", undefined, 400],
    ["nested 100,000 deep", "[".repeat(100_000) + "]".repeat(100_000), undefined, 400],
    ["broken multipart", "garbage", "multipart/form-data; boundary=xx", 400],
    ["arguments not an array", '"x"', undefined, 400],
    ["arguments null", "null", undefined, 400],
    ["over 10 MiB", Buffer.alloc(10 * 1024 * 1024 + 16, "x"), undefined, 413],
  ];
  for (const [name, data, type, status] of cases) {
    const response = await send(data, type);
    expect({ name, status: response.status() }).toEqual({ name, status });
    expect(await response.json()).toMatchObject({ error: expect.any(String), code: expect.any(String) });
  }
  expect(await everything(page)).toEqual(before);
});

test("a path Next.js cannot %-decode answers 400 — JSON on the API — never a 500", async ({ page }) => {
  for (const path of ["/api/sessions/%E0%A4%A", "/api/sessions/abc%", "/api/sessions/%ED%A0%80/rewind", "/api/nope/%E0%A4"]) {
    for (const method of ["GET", "POST"]) {
      const response = await page.request.fetch(path, { method, data: method === "POST" ? {} : undefined });
      expect({ path, method, status: response.status() }).toEqual({ path, method, status: 400 });
      expect(await response.json()).toMatchObject({ code: "invalid_request" });
    }
  }
  const pageResponse = await page.goto("/chat/%E0%A4%A");
  expect(pageResponse?.status()).toBe(400);
  await expect(page.getByRole("heading", { name: "Bad request" })).toBeVisible();
  await page.getByRole("link", { name: "Start a new chat" }).click();
  await expect(page.getByRole("textbox", { name: "Message" })).toBeVisible();
});
