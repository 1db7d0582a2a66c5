/**
 * Forks (docs/semantics.md): a fork shares its source's log below the boundary instead of copying it
 * (lib/db/log.ts), so its cost does not grow with the chat. A deleted chat whose rows forks still share
 * stays as a tombstone that no query shows, holding only those rows, until no fork needs them.
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { config } from "@/lib/config";
import { QuotaExceededError } from "@/lib/errors";
import { parseState } from "@/lib/session/state";
import { tailOf } from "@/lib/session/versions";
import { getDb } from "./client";
import type { SessionRow } from "./rows";
import { copyArtifacts } from "./tx/artifacts";
import { piecesBytes, sessionBytes } from "./tx/bytes";
import { claimSession } from "./tx/claim";
import { copyPiece } from "./tx/fork";
import { markerLinks, requireBoundary } from "./tx/layout";
import { flatten, inheritedBelow, logOf } from "./tx/log";
import { recordedArtifacts } from "./tx/rewind";
import { liveOf, sessionRecord } from "./tx/sessions";
import { stateBefore } from "./tx/state";
import { lockUser, touchUser } from "./tx/users";
import type { SessionRecord } from "./types";

/** A new session from the source as it was before `invocationId` (or all of it: "Duplicate"). */
export async function forkSession(
  userId: string,
  sessionId: string,
  input: { invocationId?: string; name?: string } = {},
): Promise<SessionRecord> {
  const db = await getDb();
  return db.write(async (tx) => {
    const source = await claimSession(tx, userId, sessionId);
    await lockUser(tx, userId);
    const count = await tx.one<{ n: number }>(sql`SELECT COUNT(*) AS n FROM sessions WHERE ${liveOf(userId)}`);
    if (Number(count?.n) >= config().limits.sessions) throw new QuotaExceededError(`more than ${config().limits.sessions} chats`);
    const log = logOf(source);
    const boundary = input.invocationId ? await requireBoundary(tx, log, input.invocationId) : source.last_seq + 1;
    // From now on the source's rows below the boundary are the fork's too: they never change again.
    await tx.run(sql`UPDATE sessions SET shared_until = ${boundary - 1} WHERE id = ${source.id} AND shared_until < ${boundary - 1}`);
    const state = input.invocationId ? await stateBefore(tx, source, boundary) : parseState(source.state);
    const id = randomUUID();
    const { pieces: inherited, copy } = flatten(inheritedBelow(log, boundary), id);
    const now = Date.now();
    const row = (await tx.one<SessionRow>(sql`
      INSERT INTO sessions (id, user_id, agent, name, named_by_user, state, initial_state, last_seq, tail_seq,
        forked_from_session_id, forked_before_invocation_id, inherited, created_at, updated_at)
      VALUES (${id}, ${userId}, ${source.agent}, ${input.name?.trim() || `Fork of ${source.name}`}, ${true}, ${JSON.stringify(state)},
        ${source.initial_state}, ${boundary - 1}, 0, ${source.id}, ${input.invocationId ?? null},
        ${inherited.length ? JSON.stringify(inherited) : null}, ${now}, ${now})
      RETURNING *`)) as SessionRow;
    for (const piece of copy) await copyPiece(tx, id, userId, piece);
    // A fork is charged for the rows it reads of other chats as if copied: they stay on disk while it does.
    const versions = input.invocationId ? (await recordedArtifacts(tx, source, boundary)).before : null;
    const bytes =
      sessionBytes(row.state, row.initial_state, row.inherited) +
      (await piecesBytes(tx, inherited)) +
      (await copyArtifacts(tx, source.id, id, versions));
    const activity = await touchUser(tx, userId, bytes);
    const tail = tailOf(boundary - 1, await markerLinks(tx, logOf(row)));
    const forked = await tx.one<SessionRow>(sql`
      UPDATE sessions SET stored_bytes = ${bytes}, activity = ${activity}, tail_seq = ${tail} WHERE id = ${id}
      RETURNING *`);
    return sessionRecord(tx, forked as SessionRow);
  });
}
