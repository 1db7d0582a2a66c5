import { afterEach, describe, expect, it } from "vitest";
import { call, newGuest, routes, snapshot } from "./support/api";

afterEach(() => {
  delete process.env.RETRACE_ADMIN_TOKEN;
});

/** A guest's chat of `turns` turns appended through the API: invocation i{n}, user text "q{n}". */
async function chat(turns: number) {
  const guest = await newGuest();
  const id = (await call(routes.sessions.POST, { method: "POST", token: guest.token, body: {} })).json.data.id;
  const events = Array.from({ length: turns }, (_, n) => [
    { invocation_id: `i${n}`, author: "user", content: { parts: [{ text: `q${n}` }] } },
    { invocation_id: `i${n}`, author: "agent", content: { parts: [{ text: `a${n}` }] }, actions: { state_delta: { n } } },
  ]).flat();
  expect((await call(routes.events.POST, { method: "POST", token: guest.token, params: { id }, body: events })).status).toBe(201);
  const get = async (route: unknown, path: string) => call(route, { token: guest.token, params: { id }, path });
  const post = async (route: unknown, body: unknown) => call(route, { method: "POST", token: guest.token, params: { id }, body });
  return { ...guest, id, get, post };
}

describe("paging", () => {
  it("events: the last N before a cursor, chronological, walking rewinds; without limit everything", async () => {
    const c = await chat(12);
    expect((await c.post(routes.rewind.POST, { rewind_before_invocation_id: "i4" })).status).toBe(200);
    await call(routes.events.POST, {
      method: "POST",
      token: c.token,
      params: { id: c.id },
      body: { invocation_id: "late", author: "user", content: { parts: [{ text: "late" }] } },
    });
    const texts = (events: { content?: { parts: { text: string }[] } }[]) => events.map((e) => e.content?.parts[0].text);
    const pages: (string | undefined)[][] = [];
    let before: string | null = null;
    do {
      const page = await c.get(routes.events.GET, `/x?view=effective&limit=3${before ? `&before=${before}` : ""}`);
      expect(page.status).toBe(200);
      pages.unshift(texts(page.json.data));
      before = page.json.next_before;
    } while (before);
    expect(pages.flat()).toEqual(["q0", "a0", "q1", "a1", "q2", "a2", "q3", "a3", "late"]);
    expect(pages.at(-1)).toEqual(["q3", "a3", "late"]);
    const all = await c.get(routes.events.GET, "/x?view=effective");
    expect(texts(all.json.data)).toEqual(pages.flat());
    expect(all.json.next_before).toBeUndefined();
  });

  it("tasks and sessions page the same way; bad limit or cursor is a clear 400 that changes nothing", async () => {
    const c = await chat(2);
    const before = await snapshot();
    for (const query of ["limit=0", "limit=501", "limit=abc", "limit=2.5", "before=x", "limit=5&before=not-a-cursor"]) {
      for (const route of [routes.tasks.GET, routes.events.GET]) {
        const { status, json } = await c.get(route, `/x?${query}`);
        expect({ query, status, code: json.code }).toEqual({ query, status: 400, code: "invalid_request" });
      }
      const listing = await call(routes.sessions.GET, { token: c.token, path: `/x?${query}` });
      expect(listing.status).toBe(400);
    }
    expect(await snapshot()).toEqual(before);
    for (let i = 0; i < 4; i++) await call(routes.sessions.POST, { method: "POST", token: c.token, body: { name: `extra ${i}` } });
    const first = await call(routes.sessions.GET, { token: c.token, path: "/x?limit=3" });
    expect(first.json.data.map((s: { name: string }) => s.name)).toEqual(["extra 3", "extra 2", "extra 1"]);
    const second = await call(routes.sessions.GET, { token: c.token, path: `/x?limit=3&before=${first.json.next_before}` });
    expect(second.json.data).toHaveLength(2);
    expect(second.json.next_before).toBeNull();
  });
});

describe("versions over HTTP", () => {
  it("switch and versions: siblings on tasks, the no-op, 400s, and 404 for another user", async () => {
    const c = await chat(2);
    await c.post(routes.rewind.POST, { rewind_before_invocation_id: "i1" });
    await call(routes.events.POST, {
      method: "POST",
      token: c.token,
      params: { id: c.id },
      body: { invocation_id: "i1b", author: "user", content: { parts: [{ text: "q1 again" }] } },
    });
    const versions = await c.get(routes.versions.GET, "/x");
    expect(versions.json.data.map((v: { turns: number; last_user_text: string }) => [v.turns, v.last_user_text])).toEqual([
      [2, "q1 again"],
      [2, "q1"],
    ]);
    const switched = await c.post(routes.switchTo.POST, { invocation_id: "i1" });
    expect(switched.status).toBe(200);
    expect(switched.json.data.event.actions.rewind_before_invocation_id).toBe(versions.json.data[1].marker_invocation_id);
    expect(switched.json.data.session.state).toEqual({ n: 1 });
    expect((await c.post(routes.switchTo.POST, { invocation_id: "i1" })).json.data.event).toBeNull();
    expect((await c.post(routes.switchTo.POST, { invocation_id: "nope" })).json.code).toBe("invocation_not_found");
    const markerId = switched.json.data.event.invocation_id;
    expect((await c.post(routes.switchTo.POST, { invocation_id: markerId })).status).toBe(400);
    expect((await c.post(routes.switchTo.POST, {})).status).toBe(400);
    const stranger = await newGuest();
    const before = await snapshot();
    for (const request of [
      { route: routes.switchTo.POST, method: "POST", body: { invocation_id: "i1b" } },
      { route: routes.versions.GET, method: "GET" },
    ]) {
      const { status } = await call(request.route, {
        method: request.method,
        token: stranger.token,
        params: { id: c.id },
        body: request.body,
      });
      expect(status).toBe(404);
    }
    expect(await snapshot()).toEqual(before);
  });
});

describe("the map over HTTP", () => {
  it("the tree, and naming and pinning a turn: shown in the tree and in versions; 400s write nothing", async () => {
    const c = await chat(2);
    await c.post(routes.rewind.POST, { rewind_before_invocation_id: "i1" });
    const put = (invocationId: string, body: unknown) =>
      call(routes.label.PUT, { method: "PUT", token: c.token, params: { id: c.id, invocationId }, body });
    const named = await put("i1", { label: "first try", pinned: true });
    expect(named.json).toEqual({ data: { invocation_id: "i1", label: "first try", pinned: true } });
    const tree = await c.get(routes.tree.GET, "/x");
    expect(tree.status).toBe(200);
    expect(
      tree.json.data.turns.map((t: { invocation_id: string; current: boolean; label: string | null }) => [
        t.invocation_id,
        t.current,
        t.label,
      ]),
    ).toEqual([
      ["i0", true, null],
      ["i1", false, "first try"],
    ]);
    expect((await c.get(routes.versions.GET, "/x")).json.data[1]).toMatchObject({ label: "first try", pinned: true });

    const before = await snapshot();
    for (const [body, code] of [
      [{ label: "x".repeat(101), pinned: false }, "invalid_request"],
      [{ label: "x" }, "invalid_request"],
      [{ label: "x", pinned: "yes" }, "invalid_request"],
      [{ label: "x", pinned: false, color: "red" }, "invalid_request"],
    ] as const) {
      const { status, json } = await put("i1", body);
      expect({ body, status, code: json.code }).toEqual({ body, status: 400, code });
    }
    const marker = (await c.get(routes.versions.GET, "/x")).json.data[1].marker_invocation_id;
    expect((await put(marker, { label: "x", pinned: false })).json.code).toBe("invocation_not_found");
    expect((await put("nope", { label: "x", pinned: false })).status).toBe(400);
    expect(await snapshot()).toEqual(before);
    expect((await put("i1", { label: null, pinned: false })).json.data).toEqual({ invocation_id: "i1", label: null, pinned: false });
  });
});

describe("the operator's app state", () => {
  const put = (token: string | null, body: unknown, agent = "demo") =>
    call(routes.appState.PUT, { method: "PUT", token, params: { agent }, body });

  it("is absent without RETRACE_ADMIN_TOKEN, refuses users and wrong tokens, and reaches every user", async () => {
    const user = await newGuest();
    expect((await put("a".repeat(32), { "app:motd": "hi" })).status).toBe(404);
    process.env.RETRACE_ADMIN_TOKEN = "operator-token-0123456789";
    expect((await put(user.token, { "app:motd": "hi" })).status).toBe(401);
    expect((await put(null, { "app:motd": "hi" })).status).toBe(401);
    const before = await snapshot();
    expect((await put("operator-token-0123456789", { motd: "no prefix" })).status).toBe(400);
    expect((await put("operator-token-0123456789", { "app:x": 1 }, "nobody")).status).toBe(404);
    expect(await snapshot()).toEqual(before);
    const set = await put("operator-token-0123456789", { "app:motd": "hello", "app:gone": true });
    expect(set.json.data).toEqual({ "app:gone": true, "app:motd": "hello" });
    expect((await put("operator-token-0123456789", { "app:gone": null })).json.data).toEqual({ "app:motd": "hello" });
    const created = await call(routes.sessions.POST, { method: "POST", token: user.token, body: {} });
    expect(created.json.data.state).toEqual({ "app:motd": "hello" });
  });

  it("a user's request that writes app: state is 403 forbidden_scope and writes nothing", async () => {
    const c = await chat(1);
    const before = await snapshot();
    const events = await c.post(routes.events.POST, [
      { invocation_id: "x", author: "user", actions: { state_delta: { fine: 1 } } },
      { invocation_id: "x", author: "agent", actions: { state_delta: { "app:motd": "pwned" } } },
    ]);
    expect([events.status, events.json.code]).toEqual([403, "forbidden_scope"]);
    const created = await call(routes.sessions.POST, { method: "POST", token: c.token, body: { state: { "app:x": 1 } } });
    expect([created.status, created.json.code]).toEqual([403, "forbidden_scope"]);
    expect(await snapshot()).toEqual(before);
  });
});

describe("health", () => {
  it("says the database answers and its migrations are current", async () => {
    const { status, json } = await call(routes.health.GET);
    expect(status).toBe(200);
    expect(json.data).toMatchObject({ database: "ok", migrations: "current" });
  });
});
