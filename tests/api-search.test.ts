/** `GET /api/search` (docs/api.md, "Search"): validated, authenticated, paged; the store's rules are tests/store-search.test.ts. */
import { describe, expect, it } from "vitest";
import { call, newGuest, routes, snapshot } from "./support/api";

async function guestWithChat(texts: string[]) {
  const guest = await newGuest();
  const id = (await call(routes.sessions.POST, { method: "POST", token: guest.token, body: { name: "Notes" } })).json.data.id;
  const events = texts.map((text, n) => ({ invocation_id: `i${n}`, author: "user", content: { parts: [{ text }] } }));
  expect((await call(routes.events.POST, { method: "POST", token: guest.token, params: { id }, body: events })).status).toBe(201);
  return { ...guest, id, search: (query: string) => call(routes.search.GET, { token: guest.token, path: `/api/search?${query}` }) };
}

describe("GET /api/search", () => {
  it("answers the caller's hits a page at a time, with the cursor beside them", async () => {
    const c = await guestWithChat(["otter one", "otter two", "otter three"]);
    const first = await c.search("q=otter&limit=2");
    expect(first.status).toBe(200);
    expect(first.json.data.map((h: { snippet: { text: string } }) => h.snippet.text)).toEqual(["otter three", "otter two"]);
    expect(first.json.data[0]).toMatchObject({
      session_id: c.id,
      session_name: "Notes",
      invocation_id: "i2",
      author: "user",
      rewound: false,
    });
    expect(first.json.data[0].snippet.highlights).toEqual([[0, 5]]);
    const second = await c.search(`q=otter&limit=2&before=${first.json.next_before}`);
    expect(second.json).toMatchObject({ data: [{ invocation_id: "i0" }], next_before: null });
    expect((await c.search("q=otter&include_rewound=true")).json.data).toHaveLength(3);
  });

  it("needs a caller, and shows nobody else's messages", async () => {
    const c = await guestWithChat(["private otter"]);
    expect((await call(routes.search.GET, { path: "/api/search?q=otter" })).status).toBe(401);
    const other = await newGuest();
    const theirs = await call(routes.search.GET, { token: other.token, path: "/api/search?q=otter" });
    expect(theirs.json).toEqual({ data: [], next_before: null });
    expect((await c.search("q=otter")).json.data).toHaveLength(1);
  });

  it("refuses bad input with a 400 and its code, and writes nothing", async () => {
    const c = await guestWithChat(["otter"]);
    const before = await snapshot();
    const cases: [string, string][] = [
      ["", "invalid_request"],
      ["q=", "invalid_request"],
      ["q=%20%20", "invalid_request"],
      ["q=***", "invalid_request"],
      [`q=${"a".repeat(501)}`, "invalid_request"],
      [`q=${Array.from({ length: 17 }, (_, i) => `w${i}`).join("+")}`, "invalid_request"],
      ["q=otter%00", "invalid_text"],
      ["q=otter&limit=0", "invalid_request"],
      ["q=otter&limit=101", "invalid_request"],
      ["q=otter&limit=x", "invalid_request"],
      ["q=otter&include_rewound=yes", "invalid_request"],
      ["q=otter&limit=5&before=nonsense", "invalid_request"],
    ];
    for (const [query, code] of cases) {
      const answer = await c.search(query);
      expect([query, answer.status, answer.json?.code]).toEqual([query, 400, code]);
    }
    for (const q of ['"otter', "otter*", "otter)", "(otter", ":otter", "^otter", "-otter", "otter'", "\\otter"]) {
      const answer = await c.search(`q=${encodeURIComponent(q)}`);
      expect([q, answer.status, answer.json.data.length]).toEqual([q, 200, 1]);
    }
    expect(await snapshot()).toEqual(before);
  });
});
