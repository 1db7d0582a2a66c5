/**
 * What carries attachments besides rewind and fork (docs/semantics.md, "Attachments"), on both dialects: a share
 * link with files ticked and its "Continue from here", an archive (bytes once per content) and its import, and a
 * guest's sign-in into an account that has the same bytes.
 */
import { createHash, randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { getAgent } from "@/lib/agent/registry";
import { startTurn } from "@/lib/agent/runtime";
import { archiveText } from "@/lib/archive/writer";
import { mergeGuest } from "@/lib/db/accounts";
import { chatRecords } from "@/lib/db/archive-export";
import { getDb } from "@/lib/db/connection";
import { importUpload } from "@/lib/db/import-upload";
import { artifactBytes, createUser, forkSession, listArtifacts, listEvents, readBlob, reapBlobs, storeUpload } from "@/lib/db/queries";
import { continueShared } from "@/lib/db/share-fork";
import { createShare, sharedFile, sharedVersion } from "@/lib/db/shares";
import { checkInvariants } from "@/lib/db/tx/invariants";
import { attachmentsOf } from "@/lib/session/attachments";
import { fixture } from "./helpers";
import { count } from "./support/db";

const sha = (data: Buffer) => createHash("sha256").update(data).digest("hex");

afterEach(() => {
  delete process.env.DEMO_WORD_DELAY_MS;
});

async function storedBytes(userId: string) {
  const db = await getDb();
  return Number((await db.one<{ n: number }>(sql`SELECT stored_bytes AS n FROM users WHERE id = ${userId}`))?.n ?? 0);
}

/** A chat with two turns, each attaching a file (the second: a file of 600 KiB, three chunks). */
async function chatWithAttachments() {
  const f = await fixture();
  const small = Buffer.from("first file\n");
  const big = randomBytes(600 * 1024);
  process.env.DEMO_WORD_DELAY_MS = "0";
  for (const [text, data, name] of [
    ["one", small, "small.txt"],
    ["two", big, "big.bin"],
  ] as const) {
    const upload = await storeUpload(f.userId, [data], {
      filename: name,
      mimeType: name.endsWith(".txt") ? "text/plain" : "application/octet-stream",
    });
    await (
      await startTurn({ userId: f.userId, sessionId: f.sessionId, agent: getAgent("demo"), text, attachments: [{ upload: upload.id }] })
    ).done;
  }
  return { ...f, small, big };
}

async function archiveOf(userId: string, sessionIds: string[]) {
  const written = new Set<string>();
  let text = "";
  for await (const piece of archiveText(
    (async function* () {
      for (const id of sessionIds) yield chatRecords(userId, id, written);
    })(),
  ))
    text += piece;
  return text;
}

const importArchive = (userId: string, text: string) =>
  importUpload(
    userId,
    (async function* () {
      yield Buffer.from(text);
    })(),
    { agent: "demo", agents: ["demo"] },
  );

async function bytesOfBlob(blobId: string) {
  const chunks: Buffer[] = [];
  for await (const chunk of readBlob(blobId)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe("a share link with files", () => {
  it("shows each message's attachments and serves them at their version; without files it shows none", async () => {
    const f = await chatWithAttachments();
    const { token } = await createShare(f.userId, f.sessionId, { includeTools: false, includeFiles: true });
    const shared = await sharedVersion(token);
    expect(shared?.events.flatMap(attachmentsOf).map((a) => a.filename)).toEqual(["small.txt", "big.bin"]);
    const file = await sharedFile(token, "big.bin", 0);
    expect(sha(await bytesOfBlob((file.blob as { id: string }).id))).toBe(sha(f.big));
    const bare = await createShare(f.userId, f.sessionId, { includeTools: false, includeFiles: false });
    expect((await sharedVersion(bare.token))?.events.flatMap(attachmentsOf)).toEqual([]);
    await expect(sharedFile(bare.token, "big.bin", 0)).rejects.toMatchObject({ status: 404 });
  });

  it("continued by another user gives them their own copy of the bytes, renumbered with the chat's files", async () => {
    const f = await chatWithAttachments();
    const { token } = await createShare(f.userId, f.sessionId, { includeTools: false, includeFiles: true });
    const reader = await createUser();
    const copy = await continueShared(token, reader);
    expect((await listArtifacts(reader, copy.id)).map((a) => a.filename)).toEqual(["big.bin", "small.txt"]);
    const attached = (await listEvents(reader, copy.id, "effective")).items.flatMap(attachmentsOf);
    expect(attached.map((a) => [a.filename, a.version])).toEqual([
      ["small.txt", 0],
      ["big.bin", 0],
    ]);
    expect(sha((await artifactBytes(reader, copy.id, "big.bin", 0, 1e7)) as Buffer)).toBe(sha(f.big));
    // Their blobs are theirs: the sharer's going changes nothing for them.
    expect(await count("blobs")).toBe(4);
    expect(await storedBytes(reader)).toBeGreaterThan(f.big.length);
    // Continued again, the bytes they have are not stored twice.
    await continueShared(token, reader);
    expect(await count("blobs")).toBe(4);
    expect(await checkInvariants(await getDb())).toEqual([]);
  });
});

describe("an archive", () => {
  it("holds each content's bytes once, in chunks; an import by another user brings them back, checked against their hash", async () => {
    const f = await chatWithAttachments();
    const fork = await forkSession(f.userId, f.sessionId);
    const text = await archiveOf(f.userId, [f.sessionId, fork.id]);
    const archive = JSON.parse(text);
    expect(archive.chats[0].blobs.map((b: { seq: number }) => b.seq)).toEqual([0, 1, 2, 0]);
    expect(archive.chats[1].blobs).toBeUndefined();
    expect(archive.chats[1].files.every((file: { data_base64?: string }) => file.data_base64 === undefined)).toBe(true);
    const other = await createUser();
    const chats = await importArchive(other, text);
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect((await listArtifacts(other, chat.id)).map((a) => a.filename)).toEqual(["big.bin", "small.txt"]);
      expect(sha((await artifactBytes(other, chat.id, "big.bin", 0, 1e7)) as Buffer)).toBe(sha(f.big));
    }
    expect(await count("blobs")).toBe(4);
    expect(await checkInvariants(await getDb())).toEqual([]);
  });

  it("imported again by its owner stores no bytes again", async () => {
    const f = await chatWithAttachments();
    const text = await archiveOf(f.userId, [f.sessionId]);
    const chunks = await count("blob_chunks");
    const bytes = await storedBytes(f.userId);
    const [chat] = await importArchive(f.userId, text);
    expect(await count("blob_chunks")).toBe(chunks);
    expect(await count("blobs")).toBe(2);
    // The new chat's rows cost what its log does, not its files' bytes.
    expect((await storedBytes(f.userId)) - bytes).toBeLessThan(f.big.length / 4);
    expect(sha((await artifactBytes(f.userId, chat.id, "big.bin", 0, 1e7)) as Buffer)).toBe(sha(f.big));
  });

  it("whose blob bytes do not match their hash, or a file whose blob is missing, is refused and leaves nothing", async () => {
    const f = await chatWithAttachments();
    const archive = JSON.parse(await archiveOf(f.userId, [f.sessionId]));
    const other = await createUser();
    const tampered = structuredClone(archive);
    tampered.chats[0].blobs[1].data_base64 = Buffer.from(Buffer.from(tampered.chats[0].blobs[1].data_base64, "base64").fill(1)).toString(
      "base64",
    );
    await expect(importArchive(other, JSON.stringify(tampered))).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("sha256"),
    });
    const missing = structuredClone(archive);
    delete missing.chats[0].blobs;
    await expect(importArchive(other, JSON.stringify(missing))).rejects.toMatchObject({ status: 400 });
    await reapBlobs(Date.now() + 120_000);
    expect(await storedBytes(other)).toBe(0);
    expect(await count("blobs")).toBe(2);
    expect(await checkInvariants(await getDb())).toEqual([]);
  });
});

describe("a guest's sign-in", () => {
  it("moves their blobs and uploads to the account, keeping a content both have once", async () => {
    const guest = await chatWithAttachments();
    const account = await chatWithAttachments();
    // The same bytes on both sides: the account's 600 KiB file, uploaded by the guest too.
    await storeUpload(guest.userId, [account.big], { filename: "same.bin", mimeType: "application/octet-stream" });
    const blobs = await count("blobs");
    await mergeGuest(guest.userId, account.userId);
    await reapBlobs();
    // Both have the small file, and the account's big one: two twins go.
    expect(await count("blobs")).toBe(blobs - 2);
    expect(sha((await artifactBytes(account.userId, guest.sessionId, "big.bin", 0, 1e7)) as Buffer)).toBe(sha(guest.big));
    expect(await checkInvariants(await getDb())).toEqual([]);
  });
});
