/** A session's row: the owner check every operation starts with, a new chat, its record, its automatic name. */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { config } from "@/lib/config";
import { ForbiddenScopeError, NotFoundError, QuotaExceededError, SessionBusyError, StaleTurnError } from "@/lib/errors";
import { autoName, DEMO_AGENT, eventText, NEW_CHAT } from "@/lib/session/names";
import { applyDelta, emptyState, isAppKey, splitDelta } from "@/lib/session/state";
import type { AdkEvent, State } from "@/lib/session/types";
import { combined, type Dialect, type Executor, mapped, one } from "../database";
import { parseJson, runningTaskId, type SessionRow, summary } from "../rows";
import type { SessionRecord } from "../types";
import { sessionBytes } from "./bytes";
import { effectiveLayout } from "./layout";
import { inPiece, logOf, piecesIn } from "./log";
import { applyScopedDelta, mergedState } from "./state";
import { ensureUser, lockUser, touchUser } from "./users";

/** The chats the user has or is importing, which the chat quota counts: a deleted chat that forks still read (a tombstone, lib/db/forks.ts) is not one. */
const chatsOf = (userId: string) => sql`user_id = ${userId} AND deleted_at IS NULL`;

/** The user's chats, as every read shows them: a chat an upload is still writing (lib/db/import-chat.ts) is nobody's to see yet. */
export const liveOf = (userId: string) => sql`${chatsOf(userId)} AND import_lease_until IS NULL`;

/**
 * The session, if `userId` owns it — checked before anything else, so another user's session is a
 * 404 whatever state it is in. `lock` holds its row until the transaction ends (PostgreSQL).
 */
export async function requireSession(tx: Executor, userId: string, sessionId: string, lock = false): Promise<SessionRow> {
  return (await tx.batch([sessionOf(tx.dialect, userId, sessionId, lock)]))[0];
}

/** The statement `requireSession` sends, to go out with others in a batch. */
export const sessionOf = (dialect: Dialect, userId: string, sessionId: string, lock = false) =>
  mapped(
    one<SessionRow>(sql`SELECT * FROM sessions WHERE id = ${sessionId} AND ${liveOf(userId)} ${lock ? dialect.forUpdate : sql``}`),
    (row) => {
      if (!row) throw new NotFoundError("Session not found");
      return row;
    },
  );

/**
 * Writes from outside a running turn answer 409; a turn's own writes (`turn` = its task id) pass while
 * it still holds the session, and are refused once another instance has taken it over.
 */
export function refuseWhileBusy(row: SessionRow, turn?: string) {
  if (turn !== undefined) {
    if (row.turn_task_id !== turn) throw new StaleTurnError();
  } else if (runningTaskId(row)) {
    throw new SessionBusyError();
  }
}

/** Only the operator writes `app:` state: a user's request naming such a key is refused whole. */
export function refuseAppScope(keys: string[]) {
  const forbidden = keys.filter(isAppKey);
  if (forbidden.length) throw new ForbiddenScopeError(forbidden);
}

export async function sessionRecord(tx: Executor, row: SessionRow): Promise<SessionRecord> {
  const source = row.forked_from_session_id
    ? await tx.one<{ name: string }>(sql`SELECT name FROM sessions WHERE id = ${row.forked_from_session_id} AND ${liveOf(row.user_id)}`)
    : undefined;
  const forks = await tx.all<{ id: string; name: string; forked_before_invocation_id: string | null }>(sql`
    SELECT id, name, forked_before_invocation_id FROM sessions
    WHERE forked_from_session_id = ${row.id} AND ${liveOf(row.user_id)} ORDER BY created_at, id`);
  return {
    ...summary(row),
    // A plain object (spread keeps every own key, `__proto__` included): React refuses null prototypes.
    state: { ...(await mergedState(tx, row)) },
    forked_from_name: source?.name ?? null,
    forks,
    running_task_id: runningTaskId(row),
  };
}

/** A new chat inside the caller's transaction (within the user's chat quota), under `input.id` when given. */
export async function createSessionTx(tx: Executor, userId: string, input: NewChat): Promise<SessionRow> {
  refuseAppScope(Object.keys(input.state ?? {}));
  await tx.batch([roomForChat(tx.dialect, userId)]);
  return insertSession(tx, userId, input);
}

type NewChat = { id?: string; agent?: string; name?: string; state?: State };

/** The user's row, created and locked, then the user's chats counted: the chat quota (429) a new chat must pass. */
export const roomForChat = (dialect: Dialect, userId: string) =>
  combined(
    [ensureUser(userId), lockUser(dialect, userId), one<{ n: number }>(sql`SELECT COUNT(*) AS n FROM sessions WHERE ${chatsOf(userId)}`)],
    ([, , count]) => {
      const limit = config().limits.sessions;
      if (Number(count?.n) >= limit) throw new QuotaExceededError(`more than ${limit} chats`);
    },
  );

/** `createSessionTx` once `roomForChat` has passed. */
export async function insertSession(tx: Executor, userId: string, input: NewChat): Promise<SessionRow> {
  const agent = input.agent ?? DEMO_AGENT;
  const parts = splitDelta(input.state);
  // null means "no such key", as in every delta.
  const state = JSON.stringify(applyDelta(emptyState(), parts.session));
  const name = input.name?.trim();
  const now = Date.now();
  const userBytes = await applyScopedDelta(tx, userId, agent, parts.user);
  const bytes = sessionBytes(state, state, null);
  const activity = await touchUser(tx, userId, bytes + userBytes);
  const row = await tx.one<SessionRow>(sql`
    INSERT INTO sessions (id, user_id, agent, name, named_by_user, state, initial_state, created_at, updated_at, activity, stored_bytes)
    VALUES (${input.id ?? randomUUID()}, ${userId}, ${agent}, ${name || NEW_CHAT}, ${Boolean(name)}, ${state}, ${state}, ${now}, ${now},
      ${activity}, ${bytes})
    RETURNING *`);
  return row as SessionRow;
}

/** The automatic name of a log with no rewind markers: its first user event's text, if it has text. */
export function nameOfLog(events: readonly AdkEvent[]): string {
  const first = events.find((e) => e.author === "user");
  const text = first ? eventText(first) : "";
  return text ? autoName(text) : NEW_CHAT;
}

/** An automatically named chat takes the name of its first visible user message ("New chat" when none is left). */
export async function refreshAutoName(tx: Executor, sessionId: string) {
  const row = await tx.one<SessionRow>(sql`SELECT * FROM sessions WHERE id = ${sessionId}`);
  if (!row || row.named_by_user) return;
  let name = NEW_CHAT;
  const log = logOf(row);
  const pieces = (await effectiveLayout(tx, row)).segments.flatMap((segment) => piecesIn(log, segment));
  for (const piece of pieces) {
    const first = await tx.one<{ data: string }>(sql`
      SELECT data FROM events WHERE ${inPiece(piece)} AND author = 'user' AND marker_parent IS NULL
      ORDER BY seq LIMIT 1`);
    const text = first ? eventText(parseJson<AdkEvent>(first.data)) : "";
    if (text) {
      name = autoName(text);
      break;
    }
  }
  if (name !== row.name) await tx.run(sql`UPDATE sessions SET name = ${name} WHERE id = ${row.id}`);
}
