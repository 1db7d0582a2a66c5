/** Sessions (chats): creation, the owner check every operation starts with, listing, naming, deletion. */
import { sql } from "drizzle-orm";
import { NotFoundError, WrongAgentError } from "@/lib/errors";
import type { State } from "@/lib/session/types";
import { getDb } from "./connection";
import { decodeCursor, type Page, type PageRequest, pageOf } from "./paging";
import { type SessionRow, summary } from "./rows";
import { releaseBlobs } from "./tx/blobs";
import { claimSession } from "./tx/claim";
import { removeSession } from "./tx/fork";
import { createSessionTx, liveOf, requireSession, sessionRecord } from "./tx/sessions";
import type { SessionRecord, SessionSummary } from "./types";

export async function createSession(userId: string, input: { agent?: string; name?: string; state?: State } = {}): Promise<SessionRecord> {
  const db = await getDb();
  return db.write(async (tx) => sessionRecord(tx, await createSessionTx(tx, userId, input)));
}

/** The user's chats (of `agent` only, when given), most recently active first (a total order), optionally one page at a time. */
export async function listSessions(userId: string, page?: PageRequest, agent?: string): Promise<Page<SessionSummary>> {
  const db = await getDb();
  // Activity is a clock in milliseconds (lib/db/tx/users.ts), past any 32-bit bound.
  const before = page?.before === undefined ? Number.MAX_SAFE_INTEGER : decodeCursor(page.before);
  const rows = await db.all<SessionRow>(sql`
    SELECT * FROM sessions WHERE ${liveOf(userId)} AND activity < ${before} ${agent === undefined ? sql`` : sql`AND agent = ${agent}`}
    ORDER BY activity DESC ${page ? sql`LIMIT ${page.limit + 1}` : sql``}`);
  // Sessions page newest first: the page's last item is its oldest.
  const { items, nextBefore } = pageOf(rows, page?.limit ?? rows.length, (r) => r.activity);
  return { items: items.reverse().map(summary), nextBefore };
}

export async function getSession(userId: string, sessionId: string): Promise<SessionRecord> {
  const db = await getDb();
  return db.read(async (tx) => sessionRecord(tx, await requireSession(tx, userId, sessionId)));
}

/** The agent of the user's session (404 when it is not theirs): one statement, for the check before a turn. */
export async function sessionAgent(userId: string, sessionId: string): Promise<string> {
  const db = await getDb();
  const row = await db.one<{ agent: string }>(sql`SELECT agent FROM sessions WHERE id = ${sessionId} AND ${liveOf(userId)}`);
  if (!row) throw new NotFoundError("Session not found");
  return row.agent;
}

/** Names the user's chat; given `agent`, only a chat of that agent (kagent's upsert names the agent too). */
export async function renameSession(userId: string, sessionId: string, name: string, agent?: string): Promise<SessionRecord> {
  const db = await getDb();
  return db.write(async (tx) => {
    const session = await requireSession(tx, userId, sessionId, true);
    if (agent !== undefined && session.agent !== agent) throw new WrongAgentError(sessionId, session.agent);
    const row = await tx.one<SessionRow>(sql`
      UPDATE sessions SET name = ${name.trim()}, named_by_user = ${true} WHERE id = ${sessionId} RETURNING *`);
    return sessionRecord(tx, row as SessionRow);
  });
}

/** Deleting a chat while a turn runs in it is refused (409): the turn would lose its session mid-write. */
export async function deleteSession(userId: string, sessionId: string): Promise<void> {
  const db = await getDb();
  await db.write(async (tx) => {
    const row = await claimSession(tx, userId, sessionId);
    await removeSession(tx, row);
    await tx.run(sql`UPDATE users SET stored_bytes = stored_bytes - ${row.stored_bytes} WHERE id = ${userId}`);
    // Attachments no other chat of the user's names go too (the sweep removes their bytes, lib/db/uploads.ts).
    await releaseBlobs(tx, userId);
  });
}
