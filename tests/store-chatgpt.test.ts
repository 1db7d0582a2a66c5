import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/lib/db/connection";
import { importUpload } from "@/lib/db/import-upload";
import {
  appendEvents,
  artifactBytes,
  createSession,
  createUser,
  listArtifacts,
  listEvents,
  listSessions,
  listTasks,
  listVersions,
  switchSession,
} from "@/lib/db/queries";
import { checkInvariants } from "@/lib/db/tx/invariants";
import { attachmentsOf } from "@/lib/session/attachments";
import { event } from "./helpers";
import { branchy, conversation, zip } from "./support/chatgpt";

const OPTIONS = { agent: "demo", agents: ["demo"] };

async function* upload(data: string | Buffer) {
  const bytes = Buffer.from(data);
  for (let i = 0; i < bytes.length; i += 500) yield bytes.subarray(i, i + 500);
}

const userTexts = async (userId: string, sessionId: string) =>
  (await listTasks(userId, sessionId)).items.map((t) => t.history?.find((m) => m.role === "user")?.parts[0]);

describe("importing a ChatGPT export", () => {
  it("keeps every branch as a version, the branch ChatGPT showed as the head", async () => {
    const userId = await createUser();
    const small = conversation("Small", [{ id: "u", parent: null, role: "user", text: "Hi" }], "u");
    const [chat, second] = await importUpload(userId, upload(JSON.stringify([branchy(), small])), OPTIONS);
    expect([chat.name, second.name]).toEqual(["Arithmetic", "Small"]);
    expect(chat.created_at).toBe(new Date(1_735_000_000_000).toISOString());
    const tasks = (await listTasks(userId, chat.id)).items;
    expect(tasks.map((t) => t.history?.map((m) => (m.parts[0] as { text?: string }).text))).toEqual([
      ["What is 2+2?", "Four."],
      ["Thanks!", "You're welcome."],
    ]);
    const siblings = tasks[0].metadata?.retrace_siblings as { index: number; invocation_ids: string[] };
    expect(siblings.index).toBe(3);
    expect(siblings.invocation_ids).toHaveLength(3);
    // Every branch is a version to restore: the current head and the one each rewind ended.
    expect((await listVersions(userId, chat.id)).map((v) => v.last_user_text?.split("\n")[0])).toEqual([
      "Thanks!",
      "What is 2+3?",
      "And 3+3?",
    ]);
    await switchSession(userId, chat.id, siblings.invocation_ids[0]);
    expect((await userTexts(userId, chat.id)).map((p) => (p as { text: string }).text)).toEqual(["What is 2+2?", "And 3+3?"]);
    await switchSession(userId, chat.id, siblings.invocation_ids[1]);
    const edited = (await listTasks(userId, chat.id)).items;
    expect(edited).toHaveLength(1);
    expect(edited[0].history?.map((m) => m.parts[0].kind)).toEqual(["text", "data", "data", "text"]);
    // The attachment was not in a lone conversations.json: the message says so.
    expect(JSON.stringify(edited[0].history?.[0])).toContain("[Attachment not imported: sum.png]");
    expect(await checkInvariants(await getDb())).toEqual([]);
  });

  it("reads the ZIP export, conversations split over several files, with its attachments", async () => {
    const userId = await createUser();
    const small = conversation("Second file", [{ id: "u", parent: null, role: "user", text: "Hi" }], "u");
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const exported = zip({
      "chat.html": "<html></html>",
      "conversations-000.json": JSON.stringify([branchy()]),
      "conversations-001.json": JSON.stringify([small]),
      "export_manifest.json": "{}",
      "file-AbC123-sum.png": png,
      "user.json": "{}",
    });
    const chats = await importUpload(userId, upload(exported), OPTIONS);
    expect(chats.map((c) => c.name)).toEqual(["Arithmetic", "Second file"]);
    const tasks = (await listTasks(userId, chats[0].id)).items;
    const siblings = tasks[0].metadata?.retrace_siblings as { invocation_ids: string[] };
    // The file came with the edited question; a rewind left that branch, so it is restored with it.
    expect(await listArtifacts(userId, chats[0].id)).toEqual([]);
    await switchSession(userId, chats[0].id, siblings.invocation_ids[1]);
    expect((await listArtifacts(userId, chats[0].id)).map((a) => [a.filename, a.mime_type])).toEqual([["sum.png", "image/png"]]);
    expect(await artifactBytes(userId, chats[0].id, "sum.png", 0, png.length)).toEqual(png);
    // It is an attachment of the message that attached it in ChatGPT.
    const effective = (await listEvents(userId, chats[0].id, "effective")).items;
    expect(effective.flatMap(attachmentsOf).map((a) => [a.filename, a.version, a.size])).toEqual([["sum.png", 0, png.length]]);
    expect(await checkInvariants(await getDb())).toEqual([]);
  });

  it("lists imported chats by their own last message, among the user's chats, in a total order", async () => {
    const userId = await createUser();
    const own = await createSession(userId, { name: "Mine, today" });
    const DAY = 86_400;
    /** A one-turn conversation whose messages were written `daysAgo` before the export's T0 (tests/support/chatgpt.ts). */
    const dated = (title: string, daysAgo: number) => {
      const chat = conversation(
        title,
        [
          { id: "u", parent: null, role: "user", text: `About ${title}` },
          { id: "a", parent: "u", role: "assistant", text: "Sure." },
        ],
        "a",
      );
      const mapping = chat.mapping as Record<string, { message: { create_time: number } | null }>;
      for (const node of Object.values(mapping)) if (node.message) node.message.create_time -= daysAgo * DAY;
      return { ...chat, create_time: chat.create_time - daysAgo * DAY };
    };
    // In the export's order, oldest first: the list shows them by date all the same, newest first.
    const imported = await importUpload(
      userId,
      upload(JSON.stringify([dated("Old", 400), dated("Newer", 0), dated("Middle", 30)])),
      OPTIONS,
    );
    const listed = (await listSessions(userId)).items;
    expect(listed.map((s) => s.name)).toEqual(["Mine, today", "Newer", "Middle", "Old"]);
    // Its last message's time (T0 + 10 s, tests/support/chatgpt.ts), not the import's.
    expect(listed.find((s) => s.name === "Old")?.updated_at).toBe(new Date((1_735_000_010 - 400 * DAY) * 1000).toISOString());
    // A second import of a chat last active in the same millisecond as one already there: both listed, no tie.
    await importUpload(userId, upload(JSON.stringify([dated("Newer again", 0)])), OPTIONS);
    const rows = await (await getDb()).all<{ name: string; activity: number }>(
      sql`SELECT name, activity FROM sessions WHERE user_id = ${userId} ORDER BY activity DESC`,
    );
    expect(rows.map((r) => r.name)).toEqual(["Mine, today", "Newer", "Newer again", "Middle", "Old"]);
    expect(new Set(rows.map((r) => Number(r.activity))).size).toBe(5);
    // Writing to an imported chat makes it the most recent.
    const old = imported.find((c) => c.name === "Old")?.id as string;
    await appendEvents(userId, old, [event("later", { author: "user", text: "again" })]);
    expect((await listSessions(userId)).items.map((s) => s.name)).toEqual(["Old", "Mine, today", "Newer", "Newer again", "Middle"]);
    expect(own.id).toBe(listed[0].id);
    expect(await checkInvariants(await getDb())).toEqual([]);
  });

  it("refuses a ZIP without conversations", async () => {
    const userId = await createUser();
    await expect(importUpload(userId, upload(zip({ "user.json": "{}" })), OPTIONS)).rejects.toThrow(/no conversations.json/);
  });
});
