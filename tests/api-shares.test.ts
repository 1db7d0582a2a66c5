import { describe, expect, it } from "vitest";
import * as revoke from "@/app/api/sessions/[id]/shares/[shareId]/route";
import * as shares from "@/app/api/sessions/[id]/shares/route";
import * as continueShared from "@/app/api/shared/[token]/fork/route";
import * as sharedFile from "@/app/s/[token]/files/[filename]/route";
import { sharedVersion } from "@/lib/db/shares";
import { Browser, newCredentials } from "./support/accounts";
import { call, guestWithChat, newGuest, routes, snapshot } from "./support/api";

async function createShare(token: string, sessionId: string, body: unknown = {}) {
  const created = await call(shares.POST, { method: "POST", token, params: { id: sessionId }, body });
  expect(created.status).toBe(201);
  return created.json.data as { id: string; token: string; url: string; include_tools: boolean; include_files: boolean };
}

describe("share link routes", () => {
  it("create, list (tokens never again), view, revoke; another user's chat is a 404", async () => {
    const owner = await guestWithChat();
    const stranger = await newGuest();
    const created = await createShare(owner.token, owner.sessionId, { include_files: true });
    expect(created.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created.url).toBe(`http://localhost/s/${created.token}`);
    const listed = await call(shares.GET, { token: owner.token, params: { id: owner.sessionId } });
    expect(listed.json.data).toEqual([expect.objectContaining({ id: created.id, include_files: true, include_tools: false })]);
    expect(JSON.stringify(listed.json)).not.toContain(created.token);
    expect(JSON.stringify(await snapshot())).not.toContain(created.token);

    const shared = await sharedVersion(created.token);
    expect(shared?.events.filter((e) => e.author === "user").map((e) => e.content?.parts?.[0].text)).toEqual([
      "set color to red",
      "save file notes.txt with content hi",
      "set color to blue",
    ]);
    const file = await call(sharedFile.GET, { params: { token: created.token, filename: "notes.txt" } });
    expect([file.status, file.text, file.headers.get("content-security-policy")]).toEqual([200, "hi", "sandbox"]);

    for (const [route, method] of [
      [shares.GET, "GET"],
      [shares.POST, "POST"],
    ] as const) {
      expect(
        (await call(route, { method, token: stranger.token, params: { id: owner.sessionId }, body: method === "POST" ? {} : undefined }))
          .status,
      ).toBe(404);
    }
    const params = { id: owner.sessionId, shareId: created.id };
    expect((await call(revoke.DELETE, { method: "DELETE", token: stranger.token, params })).status).toBe(404);
    expect((await call(revoke.DELETE, { method: "DELETE", token: owner.token, params })).status).toBe(200);
    expect(await sharedVersion(created.token)).toBeNull();
    expect((await call(sharedFile.GET, { params: { token: created.token, filename: "notes.txt" } })).status).toBe(404);
    expect((await call(revoke.DELETE, { method: "DELETE", token: owner.token, params })).status).toBe(404);
  });

  it("files only when shared; continue from here only for a signed-in reader, as a copy charged to them", async () => {
    const owner = await guestWithChat();
    const link = await createShare(owner.token, owner.sessionId);
    expect((await call(sharedFile.GET, { params: { token: link.token, filename: "notes.txt" } })).status).toBe(404);
    const guest = await newGuest();
    const refused = await call(continueShared.POST, { method: "POST", token: guest.token, params: { token: link.token } });
    expect([refused.status, refused.json.code]).toEqual([403, "sign_in_required"]);
    expect((await call(continueShared.POST, { method: "POST", token: guest.token, params: { token: "nope" } })).status).toBe(404);

    const reader = new Browser();
    expect((await reader.auth("/sign-up/email", newCredentials("Grace Hopper"))).status).toBe(200);
    const copied = await reader.api(continueShared.POST, { method: "POST", params: { token: link.token } });
    expect(copied.status).toBe(201);
    const session = await reader.api(routes.session.GET, { params: { id: copied.json.data.id } });
    expect(session.json.data.session).toMatchObject({ name: "set color to red", forked_from_session_id: null, state: { color: "blue" } });
    // Tool calls were not shared: the copy has the turns' text and state, no tool parts, and no files.
    expect(JSON.stringify(session.json.data.events)).not.toContain("function_call");
    expect((await reader.api(routes.artifacts.GET, { params: { id: copied.json.data.id } })).json.data).toEqual([]);
    const tasks = await reader.api(routes.tasks.GET, { params: { id: copied.json.data.id } });
    expect(tasks.json.data).toHaveLength(3);
  });

  it("shares what its page showed when shared, nothing more: that name, session state, the parts and fields it shows", async () => {
    const owner = await guestWithChat();
    // An API client's turn with what no page shows: another scope's state, an image, fields Retrace does not read.
    const turn = {
      invocation_id: "e-client",
      author: "user",
      content: { parts: [{ text: "look at this" }, { inline_data: { mime_type: "image/png", data: "c2VjcmV0LWltYWdl" } }] },
      actions: { state_delta: { mood: "calm", "user:secret": "s3cret-value" } },
      custom_metadata: { note: "hidden-note" },
      branch: "hidden-branch",
    };
    const reply = {
      invocation_id: "e-client",
      author: "demo",
      content: { parts: [{ text: "Nice" }] },
      grounding_metadata: { hidden: "x" },
    };
    const appended = await call(routes.events.POST, {
      method: "POST",
      token: owner.token,
      params: { id: owner.sessionId },
      body: [turn, reply],
    });
    expect(appended.status).toBe(201);
    const link = await createShare(owner.token, owner.sessionId, { include_tools: true, include_files: true });
    const renamed = await call(routes.session.PATCH, {
      method: "PATCH",
      token: owner.token,
      params: { id: owner.sessionId },
      body: { name: "Renamed later" },
    });
    expect(renamed.status).toBe(200);

    const shared = await sharedVersion(link.token);
    expect(shared?.name).toBe("set color to red");
    const reader = new Browser();
    expect((await reader.auth("/sign-up/email", newCredentials("Ada Lovelace"))).status).toBe(200);
    const copied = await reader.api(continueShared.POST, { method: "POST", params: { token: link.token } });
    const session = await reader.api(routes.session.GET, { params: { id: copied.json.data.id } });
    expect(session.json.data.session).toMatchObject({ name: "set color to red", state: { color: "blue", mood: "calm" } });
    expect(session.json.data.session.state).not.toHaveProperty("user:secret");
    const everything = JSON.stringify([
      shared?.name,
      shared?.events,
      session.json,
      await reader.api(routes.tasks.GET, { params: { id: copied.json.data.id } }),
    ]);
    for (const hidden of [
      "Renamed later",
      "s3cret-value",
      "user:secret",
      "hidden-note",
      "hidden-branch",
      "grounding_metadata",
      "c2VjcmV0",
    ]) {
      expect(everything).not.toContain(hidden);
    }
    // What the page shows is all there: the texts, the tool calls (shared), the file.
    expect(everything).toContain("look at this");
    expect(everything).toContain("function_call");
    expect((await reader.api(routes.artifacts.GET, { params: { id: copied.json.data.id } })).json.data).toHaveLength(1);
  });
});
