/**
 * Attachments in the store (docs/semantics.md, "Attachments"), on both dialects: uploads streamed in chunks and
 * kept once per user and content, files of the turn that sends them under rewind, undo and fork, quota and size
 * limits, ownership, and what a deleted chat's attachments leave behind.
 */
import { createHash, randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { getAgent } from "@/lib/agent/registry";
import { startTurn } from "@/lib/agent/runtime";
import { getDb } from "@/lib/db/connection";
import {
  artifactBytes,
  createUser,
  deleteSession,
  forkSession,
  getTask,
  listArtifacts,
  listEvents,
  openUpload,
  readBlob,
  reapBlobs,
  removeUpload,
  rewindSession,
  storeUpload,
} from "@/lib/db/queries";
import { checkInvariants } from "@/lib/db/tx/invariants";
import { attachmentsOf } from "@/lib/session/attachments";
import { fixture } from "./helpers";
import { count, tableRows } from "./support/db";
import { tinyPdf } from "./support/files";

const demo = getAgent("demo");
const sha = (data: Buffer) => createHash("sha256").update(data).digest("hex");

afterEach(() => {
  delete process.env.RETRACE_MAX_STORED_BYTES;
  delete process.env.RETRACE_MAX_UPLOAD_BYTES;
  delete process.env.RETRACE_MAX_ATTACHMENTS;
  delete process.env.DEMO_WORD_DELAY_MS;
});

/** `data` as a request body arrives: in pieces of 64 KiB. */
function* pieces(data: Buffer, size = 64 * 1024) {
  for (let at = 0; at < data.length; at += size) yield data.subarray(at, at + size);
}

const upload = (userId: string, data: Buffer, filename = "report.bin", mimeType = "application/octet-stream") =>
  storeUpload(userId, pieces(data), { filename, mimeType });

async function storedBytes(userId: string) {
  const db = await getDb();
  return Number((await db.one<{ n: number }>(sql`SELECT stored_bytes AS n FROM users WHERE id = ${userId}`))?.n ?? 0);
}

async function bytesOf(blobId: string) {
  const chunks: Buffer[] = [];
  for await (const chunk of readBlob(blobId)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A demo turn that attaches `uploads` to `text`; resolves once it has ended. */
async function send(f: { userId: string; sessionId: string }, text: string, uploads: string[]) {
  process.env.DEMO_WORD_DELAY_MS = "0";
  const turn = await startTurn({
    userId: f.userId,
    sessionId: f.sessionId,
    agent: demo,
    text,
    attachments: uploads.map((id) => ({ upload: id })),
  });
  return { turn, task: await turn.done };
}

describe("uploads", () => {
  it("are stored in chunks as they stream in, their hash computed on the way, and read back chunk by chunk", async () => {
    const userId = await createUser();
    const data = randomBytes(700 * 1024);
    const stored = await upload(userId, data);
    expect(stored).toMatchObject({ filename: "report.bin", size: data.length, sha256: sha(data) });
    expect(await count("blob_chunks")).toBe(3);
    const opened = await openUpload(userId, stored.id);
    expect(sha(await bytesOf(opened.blobId))).toBe(sha(data));
    expect(await checkInvariants(await getDb())).toEqual([]);
  });

  it("keep the same bytes once per user: a second upload stores no second blob; another user's is theirs", async () => {
    const userId = await createUser();
    const data = randomBytes(300 * 1024);
    const first = await upload(userId, data, "a.bin");
    const bytes = await storedBytes(userId);
    const second = await upload(userId, data, "b.bin");
    expect(second.sha256).toBe(first.sha256);
    expect(await count("blobs")).toBe(1);
    expect(await count("blob_chunks")).toBe(2);
    // The second upload's row costs its name; the bytes are not charged again.
    expect((await storedBytes(userId)) - bytes).toBeLessThan(300);
    const other = await createUser();
    await upload(other, data);
    expect(await count("blobs")).toBe(2);
  });

  it("past RETRACE_MAX_UPLOAD_BYTES are refused (413) and leave nothing once swept, their bytes refunded", async () => {
    process.env.RETRACE_MAX_UPLOAD_BYTES = String(400 * 1024);
    const userId = await createUser();
    await upload(userId, randomBytes(100));
    const bytes = await storedBytes(userId);
    await expect(upload(userId, randomBytes(500 * 1024))).rejects.toMatchObject({ status: 413, code: "payload_too_large" });
    await reapBlobs();
    expect(await count("blobs")).toBe(1);
    expect(await storedBytes(userId)).toBe(bytes);
  });

  it("past the byte quota are refused (429) before a byte over it is written, and leave nothing", async () => {
    process.env.RETRACE_MAX_STORED_BYTES = String(600 * 1024);
    const userId = await createUser();
    await expect(upload(userId, randomBytes(900 * 1024))).rejects.toMatchObject({ status: 429, code: "quota_exceeded" });
    await reapBlobs();
    expect(await count("blobs")).toBe(0);
    expect(await count("blob_chunks")).toBe(0);
    expect(await storedBytes(userId)).toBe(0);
  });

  it("expire unattached, and a removed or expired upload's bytes go unless a message attached them", async () => {
    const f = await fixture();
    const kept = await upload(f.userId, Buffer.from("kept"), "kept.txt", "text/plain");
    const dropped = await upload(f.userId, Buffer.from("dropped"), "dropped.txt", "text/plain");
    await send(f, "here", [kept.id]);
    await removeUpload(f.userId, dropped.id);
    await expect(openUpload(f.userId, dropped.id)).rejects.toMatchObject({ status: 404 });
    await reapBlobs(Date.now() + 48 * 3_600_000);
    expect(await count("uploads")).toBe(0);
    expect(await count("blobs")).toBe(1);
    expect((await artifactBytes(f.userId, f.sessionId, "kept.txt", 0, 100))?.toString()).toBe("kept");
    expect(await checkInvariants(await getDb())).toEqual([]);
  });
});

describe("attachments are files of their turn", () => {
  it("a send attaches its uploads: versions of the chat's files, named by the user's event, acknowledged by the demo agent", async () => {
    const f = await fixture();
    const report = tinyPdf(["First page", "Second page"]);
    const pdf = await upload(f.userId, report, "report.pdf", "application/pdf");
    const notes = await upload(f.userId, Buffer.from("one\ntwo\nthree\n"), "notes.txt", "text/plain");
    const { task } = await send(f, "look at these", [pdf.id, notes.id]);
    const [user] = (await listEvents(f.userId, f.sessionId)).items;
    expect(user.content?.parts?.[0]).toEqual({ text: "look at these" });
    expect(attachmentsOf(user)).toEqual([
      { filename: "report.pdf", version: 0, mime_type: "application/pdf", size: report.length, sha256: pdf.sha256 },
      { filename: "notes.txt", version: 0, mime_type: "text/plain", size: 14, sha256: notes.sha256 },
    ]);
    expect(user.content?.parts?.[1]?.file_data).toEqual({
      file_uri: "artifact:report.pdf?version=0",
      mime_type: "application/pdf",
      display_name: "report.pdf",
    });
    expect(user.actions?.artifact_delta).toEqual({ "report.pdf": 0, "notes.txt": 0 });
    expect((await listArtifacts(f.userId, f.sessionId)).map((a) => a.filename)).toEqual(["notes.txt", "report.pdf"]);
    const reply = task.history?.at(-1)?.parts[0];
    expect(reply).toMatchObject({ kind: "text" });
    expect((reply as { text: string }).text).toContain("I received 2 files: **report.pdf** (PDF, 2 pages, ");
    expect((reply as { text: string }).text).toContain("**notes.txt** (text, 3 lines, 14 B)");
    // The task's first message carries them as A2A file parts.
    const first = (await getTask(f.userId, task.id)).history?.[0];
    expect(first?.parts[1]).toEqual({
      kind: "file",
      file: { uri: `/api/sessions/${f.sessionId}/artifacts/report.pdf?version=0`, mimeType: "application/pdf", name: "report.pdf" },
      metadata: { retrace_size: report.length, retrace_sha256: pdf.sha256, retrace_version: 0 },
    });
    expect(await checkInvariants(await getDb())).toEqual([]);
  });

  it("two files of one name in one message get names of their own", async () => {
    const f = await fixture();
    const a = await upload(f.userId, Buffer.from("a"), "image.png", "image/png");
    const b = await upload(f.userId, Buffer.from("b"), "image.png", "image/png");
    await send(f, "", [a.id, b.id]);
    expect((await listArtifacts(f.userId, f.sessionId)).map((x) => x.filename)).toEqual(["image (2).png", "image.png"]);
  });

  it("a rewind before the turn removes them from the chat's files and its history; undo brings them back", async () => {
    const f = await fixture();
    const data = randomBytes(1000);
    const file = await upload(f.userId, data, "data.bin");
    const { turn } = await send(f, "here", [file.id]);
    const marker = await rewindSession(f.userId, f.sessionId, turn.invocationId);
    expect(await listArtifacts(f.userId, f.sessionId)).toEqual([]);
    expect((await listEvents(f.userId, f.sessionId, "effective")).items.flatMap(attachmentsOf)).toEqual([]);
    await rewindSession(f.userId, f.sessionId, marker.event.invocation_id, "undo");
    expect((await listArtifacts(f.userId, f.sessionId)).map((a) => [a.filename, a.size])).toEqual([["data.bin", 1000]]);
    expect((await listEvents(f.userId, f.sessionId, "effective")).items.flatMap(attachmentsOf)).toHaveLength(1);
    // The restored version names the same blob: nothing was copied.
    expect(await count("blobs")).toBe(1);
    expect(sha((await artifactBytes(f.userId, f.sessionId, "data.bin", 2, 10_000)) as Buffer)).toBe(sha(data));
    expect(await checkInvariants(await getDb())).toEqual([]);
  });

  it("a fork keeps those before its point and shares their bytes: no blob is copied", async () => {
    const f = await fixture();
    const first = await upload(f.userId, randomBytes(600 * 1024), "first.bin");
    const second = await upload(f.userId, randomBytes(600 * 1024), "second.bin");
    await send(f, "one", [first.id]);
    const { turn } = await send(f, "two", [second.id]);
    const chunks = await count("blob_chunks");
    const bytes = await storedBytes(f.userId);
    const fork = await forkSession(f.userId, f.sessionId, { invocationId: turn.invocationId });
    expect((await listArtifacts(f.userId, fork.id)).map((a) => a.filename)).toEqual(["first.bin"]);
    const whole = await forkSession(f.userId, f.sessionId);
    expect((await listArtifacts(f.userId, whole.id)).map((a) => a.filename)).toEqual(["first.bin", "second.bin"]);
    expect(await count("blob_chunks")).toBe(chunks);
    expect((await storedBytes(f.userId)) - bytes).toBeLessThan(20_000);
    expect(sha((await artifactBytes(f.userId, whole.id, "second.bin", 0, 1e7)) as Buffer)).toBe(second.sha256);
    expect(await checkInvariants(await getDb())).toEqual([]);
  });

  it("another user's upload, or an expired one, is a 404 and the send writes nothing", async () => {
    const f = await fixture();
    const stranger = await createUser();
    const theirs = await upload(stranger, Buffer.from("secret"), "secret.txt", "text/plain");
    const before = await tableRows();
    await expect(
      startTurn({ userId: f.userId, sessionId: f.sessionId, agent: demo, text: "hi", attachments: [{ upload: theirs.id }] }),
    ).rejects.toMatchObject({
      status: 404,
    });
    const mine = await upload(f.userId, Buffer.from("mine"), "mine.txt", "text/plain");
    await reapBlobs(Date.now() + 48 * 3_600_000);
    await expect(
      startTurn({ userId: f.userId, sessionId: f.sessionId, agent: demo, text: "hi", attachments: [{ upload: mine.id }] }),
    ).rejects.toMatchObject({
      status: 404,
    });
    expect((await tableRows()).events).toEqual(before.events);
    expect(await listArtifacts(f.userId, f.sessionId)).toEqual([]);
  });

  it("a message may carry at most RETRACE_MAX_ATTACHMENTS", async () => {
    process.env.RETRACE_MAX_ATTACHMENTS = "2";
    const f = await fixture();
    const ids: string[] = [];
    for (const name of ["a.txt", "b.txt", "c.txt"]) ids.push((await upload(f.userId, Buffer.from(name), name, "text/plain")).id);
    await expect(send(f, "three", ids)).rejects.toMatchObject({ status: 400 });
    expect((await listEvents(f.userId, f.sessionId)).items).toEqual([]);
  });

  it("a deleted chat's attachments go once no other chat names them, their bytes refunded", async () => {
    const f = await fixture();
    const data = randomBytes(300 * 1024);
    const file = await upload(f.userId, data, "x.bin");
    await send(f, "here", [file.id]);
    const other = await fixture();
    const before = await storedBytes(f.userId);
    // Another chat of the same user attaches the same bytes: they stay while it does.
    const again = await upload(f.userId, data, "again.bin");
    const copy = { userId: f.userId, sessionId: (await forkSession(f.userId, f.sessionId)).id };
    await removeUpload(f.userId, file.id);
    await removeUpload(f.userId, again.id);
    await deleteSession(f.userId, f.sessionId);
    await reapBlobs();
    expect(await count("blobs")).toBe(1);
    await deleteSession(f.userId, copy.sessionId);
    await reapBlobs();
    expect(await count("blobs")).toBe(0);
    expect(await count("blob_chunks")).toBe(0);
    expect(await storedBytes(f.userId)).toBeLessThan(before - data.length);
    expect(other).toBeDefined();
    expect(await checkInvariants(await getDb())).toEqual([]);
  });
});
