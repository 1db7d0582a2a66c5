/**
 * What a user really stores, summed from the tables, and a writer that tries every path that stores
 * something: the quota test (and `npm run bench -- --hardening`) check the first never passes the quota.
 */
import { type SQL, sql } from "drizzle-orm";
import { getAgent } from "@/lib/agent/registry";
import { startTurn } from "@/lib/agent/runtime";
import { archiveText } from "@/lib/archive/writer";
import { chatRecords } from "@/lib/db/archive-export";
import type { Database } from "@/lib/db/database";
import { importUpload } from "@/lib/db/import-upload";
import {
  appendEvents,
  createSession,
  deleteSession,
  forkSession,
  reapBlobs,
  rewindForMessage,
  rewindSession,
  saveArtifact,
  storeUpload,
  switchSession,
} from "@/lib/db/queries";
import { createShare } from "@/lib/db/shares";
import { CHUNK_BYTES } from "@/lib/db/tx/blobs";
import { ROW_BYTES } from "@/lib/db/tx/bytes";
import { QuotaExceededError } from "@/lib/errors";
import { newInvocationId } from "@/lib/session/rewind";
import type { AdkEvent, StateDelta } from "@/lib/session/types";

/** Bytes of the text and blob columns of every row the user's chats (deleted ones kept for forks included), state and files hold. */
export async function storedBytesOf(db: Database, userId: string): Promise<number> {
  const len = (column: string) => sql`COALESCE(${db.dialect.byteLength(sql.raw(column))}, 0)`;
  const sum = (columns: string[]) => sql.join(columns.map(len), sql` + `);
  const mine = sql`session_id IN (SELECT id FROM sessions WHERE user_id = ${userId})`;
  const parts: SQL[] = [
    sql`SELECT SUM(${sum(["state", "initial_state", "name", "inherited"])}) AS n FROM sessions WHERE user_id = ${userId}`,
    sql`SELECT SUM(${sum(["id", "invocation_id", "author", "data", "state_delta", "artifact_delta"])}) AS n FROM events WHERE ${mine}`,
    sql`SELECT SUM(${sum(["invocation_id", "after_invocation_id", "task_id", "message_id", "task"])}) AS n FROM invocations WHERE ${mine}`,
    sql`SELECT SUM(${len("state")}) AS n FROM state_checkpoints WHERE ${mine}`,
    sql`SELECT SUM(${len("text")}) AS n FROM search_texts WHERE ${mine}`,
    sql`SELECT SUM(${sum(["initials", "marks"])}) AS n FROM search_marks WHERE ${mine}`,
    sql`SELECT SUM(${sum(["key", "value"])}) AS n FROM user_state WHERE user_id = ${userId}`,
    // An attachment's version holds its blob's hash; the blob its bytes, once.
    sql`SELECT SUM(${sum(["filename", "mime_type", "blob_sha256"])} + CASE WHEN blob_sha256 IS NULL THEN size ELSE 0 END) AS n
      FROM artifacts WHERE user_id = ${userId}`,
    sql`SELECT SUM(${sum(["id", "token_hash", "name"])}) AS n FROM share_links WHERE ${mine}`,
    sql`SELECT SUM(${len("sha256")}) AS n FROM blobs WHERE user_id = ${userId}`,
    sql`SELECT SUM(${len("c.data")}) AS n FROM blob_chunks c JOIN blobs b ON b.id = c.blob_id WHERE b.user_id = ${userId}`,
    sql`SELECT SUM(${sum(["id", "filename", "mime_type", "sha256"])}) AS n FROM uploads WHERE user_id = ${userId}`,
  ];
  let total = 0;
  for (const part of parts) total += Number((await db.one<{ n: number | null }>(part))?.n ?? 0);
  return total;
}

const event = (invocationId: string, author: string, text: string | undefined, delta: StateDelta = {}): AdkEvent => ({
  id: crypto.randomUUID(),
  invocation_id: invocationId,
  author,
  timestamp: Date.now() / 1000,
  ...(text === undefined ? {} : { content: { role: author === "user" ? "user" : "model", parts: [{ text }] } }),
  actions: { state_delta: delta, artifact_delta: {} },
});

const big = (n: number, seed: number) => `${seed}:`.padEnd(n, "x");

/**
 * Writes as much as it can through every path that stores bytes — a new chat's state, events (with
 * state the checkpoints copy), `user:` state left behind by deleted chats, forks, files, rewinds that
 * restore files, switches, demo-agent turns and A2A rewinds — and resolves with how many writes the quota refused.
 */
export async function writeEverywhere(userId: string, { rounds }: { rounds: number }): Promise<number> {
  let refused = 0;
  const attempt = async <T>(write: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await write();
    } catch (error) {
      // An import reports the quota it met as its own error, with the same code.
      if (!(error instanceof QuotaExceededError) && (error as { code?: string }).code !== "quota_exceeded") throw error;
      refused += 1;
      return undefined;
    }
  };
  process.env.DEMO_WORD_DELAY_MS = "0";
  for (let round = 0; round < rounds; round++) {
    const made = await attempt(() => createSession(userId, { state: { big: big(50_000, round), "user:big": big(20_000, round) } }));
    if (!made) continue;
    const id = made.id;
    // A big key, then enough small events for a state checkpoint to copy the big state.
    const first = newInvocationId();
    const started = await attempt(() =>
      appendEvents(userId, id, [event(first, "user", "go", { huge: big(60_000, round), [`user:k${round}`]: big(10_000, round) })]),
    );
    for (let batch = 0; batch < 2; batch++) {
      const inv = newInvocationId();
      await attempt(() =>
        appendEvents(
          userId,
          id,
          Array.from({ length: 200 }, (_, i) => event(inv, i ? "demo" : "user", "a", { n: i })),
        ),
      );
    }
    const file = await attempt(() =>
      saveArtifact(userId, id, { filename: "f.txt", mimeType: "text/plain", data: Buffer.from(big(30_000, round)) }),
    );
    const second = newInvocationId();
    if (await attempt(() => appendEvents(userId, id, [event(second, "user", "edit me", { huge: null })]))) {
      if (file) await attempt(() => saveArtifact(userId, id, { filename: "f.txt", mimeType: "text/plain", data: Buffer.from("small") }));
      if (await attempt(() => rewindSession(userId, id, second))) {
        await attempt(() => appendEvents(userId, id, [event(newInvocationId(), "user", "edited")]));
        await attempt(() => switchSession(userId, id, second));
      }
      const fork = await attempt(() => forkSession(userId, id, { invocationId: second }));
      if (fork) await attempt(() => forkSession(userId, fork.id));
    }
    for (const text of [
      `set color to "${big(5_000, round)}"`,
      `set user:pref to "${big(5_000, round)}"`,
      "save file g.txt with content hi",
    ]) {
      const turn = await attempt(() => startTurn({ userId, sessionId: id, agent: getAgent("demo"), text }));
      await turn?.done;
    }
    // An attachment: its upload, the bytes once, and the file version that names them.
    const attachment = await attempt(() =>
      storeUpload(userId, [Buffer.from(big(40_000, round))], { filename: "a.bin", mimeType: "application/octet-stream" }),
    );
    if (attachment) {
      const turn = await attempt(() =>
        startTurn({ userId, sessionId: id, agent: getAgent("demo"), text: "here", attachments: [{ upload: attachment.id }] }),
      );
      await turn?.done;
    }
    if (started) await attempt(() => rewindForMessage(userId, id, first, "rewind", crypto.randomUUID()));
    // A share link, and the chat exported and imported back (every row it writes is charged).
    await attempt(() => createShare(userId, id, { includeTools: true, includeFiles: true }));
    let archive = "";
    for await (const piece of archiveText(
      (async function* () {
        yield chatRecords(userId, id);
      })(),
    ))
      archive += piece;
    const upload = (async function* () {
      yield Buffer.from(archive);
    })();
    await attempt(() => importUpload(userId, upload, { agent: "demo", agents: ["demo"] }));
    // The chat goes; its `user:` state stays with the user, its attachments' bytes go with the sweep.
    if (round % 2 === 0) {
      await deleteSession(userId, id);
      await reapBlobs();
    }
  }
  return refused;
}

/** The user's byte counter, and what it should be: their live chats' counters plus their `user:` state and files, blobs and uploads. */
export async function countedBytesOf(db: Database, userId: string) {
  const one = async (query: SQL) => Number((await db.one<{ n: number | null }>(query))?.n ?? 0);
  const len = (column: string) => db.dialect.byteLength(sql.raw(column));
  return {
    counted: await one(sql`SELECT stored_bytes AS n FROM users WHERE id = ${userId}`),
    books:
      (await one(sql`SELECT SUM(stored_bytes) AS n FROM sessions WHERE user_id = ${userId} AND deleted_at IS NULL`)) +
      (await one(sql`SELECT SUM(${ROW_BYTES} + ${len("key")} + ${len("value")}) AS n FROM user_state WHERE user_id = ${userId}`)) +
      (await one(sql`
        SELECT SUM(${ROW_BYTES} + ${len("filename")} + ${len("mime_type")} + size) AS n FROM artifacts
        WHERE user_id = ${userId} AND session_id IS NULL`)) +
      (await one(sql`
        SELECT SUM(${ROW_BYTES} + 64 + size + (size + ${sql.raw(String(CHUNK_BYTES - 1))}) / ${sql.raw(String(CHUNK_BYTES))} * ${ROW_BYTES}) AS n FROM blobs WHERE user_id = ${userId}`)) +
      (await one(sql`
        SELECT SUM(${ROW_BYTES} + ${len("id")} + ${len("filename")} + ${len("mime_type")} + ${len("sha256")}) AS n FROM uploads WHERE user_id = ${userId}`)),
  };
}
