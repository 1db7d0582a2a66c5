import { describe, expect, it } from "vitest";
import * as exportAll from "@/app/api/export/route";
import * as imports from "@/app/api/imports/route";
import * as exportChat from "@/app/api/sessions/[id]/export/route";
import { call, guestWithChat, newGuest, routes, snapshot } from "./support/api";
import { conversation, LOOPS, zip } from "./support/chatgpt";
import { STALL_LIMIT_MS, withProbe } from "./support/stall";

describe("export and import routes", () => {
  it("export a chat as an archive or Markdown, all chats at once, and import them back", async () => {
    const owner = await guestWithChat();
    const one = await call(exportChat.GET, { token: owner.token, params: { id: owner.sessionId } });
    expect(one.status).toBe(200);
    expect(one.headers.get("content-disposition")).toMatch(/^attachment; filename="set-color-to-red\.retrace\.json"/);
    expect(one.json.chats).toHaveLength(1);
    const markdown = await call(exportChat.GET, { token: owner.token, path: "/api/x?format=markdown", params: { id: owner.sessionId } });
    expect(markdown.headers.get("content-type")).toContain("text/markdown");
    expect(markdown.text).toContain("### You\n\nsave file notes.txt with content hi");
    // One heading per reply: its tool call, the call's result and its text beneath it.
    expect(markdown.text.match(/^### demo$/gm)).toHaveLength(3);
    expect(markdown.text).toMatch(/### demo\n\n> Tool call `save_artifact`: .*\n\n> Tool result `save_artifact`: .*\n\n\S/);
    const all = await call(exportAll.GET, { token: owner.token });
    expect(all.json.chats.map((c: { session: { id: string } }) => c.session.id)).toEqual([owner.sessionId]);

    const importer = await newGuest();
    const imported = await call(imports.POST, { method: "POST", token: importer.token, raw: all.text });
    expect(imported.status).toBe(201);
    expect(imported.json.data.chats.map((c: { name: string }) => c.name)).toEqual(["set color to red"]);
    const listed = await call(routes.sessions.GET, { token: importer.token });
    expect(listed.json.data).toHaveLength(1);
    // Streamed: progress lines, then the answer.
    const streamed = await call(imports.POST, {
      method: "POST",
      token: importer.token,
      raw: all.text,
      headers: { accept: "application/x-ndjson" },
    });
    const lines = streamed.text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.at(-1).data.chats).toHaveLength(1);
  });

  it("validates, authenticates and checks ownership before anything", async () => {
    const owner = await guestWithChat();
    const stranger = await newGuest();
    expect((await call(exportChat.GET, { token: stranger.token, params: { id: owner.sessionId } })).status).toBe(404);
    expect((await call(exportChat.GET, { params: { id: owner.sessionId } })).status).toBe(401);
    expect((await call(exportChat.GET, { token: owner.token, path: "/api/x?format=pdf", params: { id: owner.sessionId } })).status).toBe(
      400,
    );
    const before = await snapshot();
    const form = await call(imports.POST, { method: "POST", token: stranger.token, raw: "[]", headers: { "content-type": "text/plain" } });
    expect(form.status).toBe(415);
    const junk = await call(imports.POST, { method: "POST", token: stranger.token, raw: "{nope" });
    expect(junk.status).toBe(400);
    expect(junk.json.code).toBe("invalid_request");
    expect((await call(imports.POST, { method: "POST", token: stranger.token, path: "/api/x?agent=nobody", raw: "[]" })).status).toBe(400);
    expect(await snapshot()).toEqual(before);
  });
});

describe("imports hold every route's input rules (issue 37)", () => {
  const hello = conversation("Hello", [{ id: "u", parent: null, role: "user", text: "Hi" }], "u");
  const post = (token: string, raw: string | Uint8Array<ArrayBuffer>, type = "application/json") =>
    call(imports.POST, { method: "POST", token, raw, headers: { "content-type": type } });
  /** JSON text with arrays `depth` deep where `"deep"` stood (deeper than JSON.stringify can write). */
  const deepen = (json: string, depth: number) => json.replace('"deep"', `${"[".repeat(depth)}${"]".repeat(depth)}`);
  /** One conversation whose message says `text`, carrying `extra` beside its mapping. */
  const saying = (text: string, extra: unknown = null) => ({
    ...conversation("Odd", [{ id: "u", parent: null, role: "user", text }], "u"),
    extra,
  });

  it("refuses a ChatGPT conversation whose mapping loops with a 400 naming it, and the server keeps answering", async () => {
    const importer = await newGuest();
    for (const [shape, mapping] of Object.entries(LOOPS)) {
      const raw = JSON.stringify([hello, { title: shape, mapping, current_node: null }]);
      const { result, worstMs } = await withProbe(() => post(importer.token, raw));
      expect([result.status, result.json.code], shape).toEqual([400, "invalid_request"]);
      expect(result.json.error, shape).toMatch(
        new RegExp(`^Conversation 2 \\(“${shape}”\\): .*loop.*\\(the 1 chats before it were imported\\)$`),
      );
      expect(worstMs, shape).toBeLessThan(STALL_LIMIT_MS);
      expect((await call(routes.health.GET)).status).toBe(200);
    }
    expect((await call(routes.sessions.GET, { token: importer.token })).json.data).toHaveLength(Object.keys(LOOPS).length);
  });

  it("refuses JSON nested deeper than 64 levels within a chat, in both formats, as any route does", async () => {
    const owner = await guestWithChat();
    const archive = JSON.parse((await call(exportChat.GET, { token: owner.token, params: { id: owner.sessionId } })).text);
    archive.chats[0].events[0].extra = "deep";
    /** The archive with an event `depth` levels deep, counted from the event as from a request body. */
    const withEvent = (depth: number) => deepen(JSON.stringify(archive), depth - 1);
    const conversationOf = (depth: number) => deepen(JSON.stringify([saying("x", "deep")]), depth - 1);
    const importer = await newGuest();
    const before = await snapshot();
    for (const raw of [withEvent(65), withEvent(5000), conversationOf(65), conversationOf(5000)]) {
      const refused = await post(importer.token, raw);
      expect([refused.status, refused.json.code]).toEqual([400, "json_too_deep"]);
    }
    expect(await snapshot()).toEqual(before);
    expect((await post(importer.token, withEvent(64))).status).toBe(201);
    expect((await post(importer.token, conversationOf(64))).status).toBe(201);
  });

  it("refuses NUL characters and unpaired surrogates in both formats, and stores nothing", async () => {
    const owner = await guestWithChat();
    const exported = (await call(exportChat.GET, { token: owner.token, params: { id: owner.sessionId } })).text;
    const importer = await newGuest();
    const before = await snapshot();
    for (const text of ["a\u0000b", "a\ud800b", "a\udc00", "\ud83d"]) {
      const archive = JSON.parse(exported);
      archive.chats[0].events[0].content.parts[0].text = text;
      for (const raw of [JSON.stringify(archive), JSON.stringify([saying(text)])]) {
        const refused = await post(importer.token, raw);
        expect([refused.status, refused.json.code], raw.slice(0, 200)).toEqual([400, "invalid_text"]);
        expect(refused.json.error).toMatch(/contains a NUL character or an unpaired UTF-16 surrogate/);
      }
    }
    expect(await snapshot()).toEqual(before);
    // A surrogate pair, escaped or not, is text like any other.
    const pair = JSON.stringify([saying("😀 😀")]).replace("😀", "\\ud83d\\ude00");
    expect((await post(importer.token, pair)).status).toBe(201);
  });

  it("refuses one value longer than a message may be, as it streams", async () => {
    const importer = await newGuest();
    const before = await snapshot();
    const long = "x".repeat(10 * 1024 * 1024 + 1);
    for (const raw of [
      JSON.stringify([saying(long)]),
      JSON.stringify([{ ...hello, [long]: 1 }]),
      `[{"title":1${"0".repeat(11 * 1024 * 1024)}}]`,
    ]) {
      const refused = await post(importer.token, raw);
      expect([refused.status, refused.json.code]).toEqual([400, "invalid_request"]);
      expect(refused.json.error).toMatch(/^Conversation 1: A value in the file is longer than 10 MiB/);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("refuses a ZIP whose entries climb out, are absolute, or lie about their size, with a readable 400", async () => {
    const importer = await newGuest();
    const conversations = JSON.stringify([hello]);
    const before = await snapshot();
    for (const [files, why] of [
      [{ "../conversations.json": conversations }, /invalid relative path: \.\.\/conversations\.json/],
      [{ "/conversations.json": conversations }, /absolute path: \/conversations\.json/],
      [{ "conversations.json": { data: conversations, declaredSize: 10 } }, /size mismatch/],
      [{ "conversations.json": { data: conversations, deflate: true, declaredSize: 10 } }, /too many bytes/],
    ] as const) {
      const refused = await post(importer.token, new Uint8Array(zip(files)), "application/zip");
      expect([refused.status, refused.json.code]).toEqual([400, "invalid_request"]);
      expect(refused.json.error).toMatch(/The ZIP file cannot be read/);
      expect(refused.json.error).toMatch(why);
    }
    expect(await snapshot()).toEqual(before);
  });
});
