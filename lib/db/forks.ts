/**
 * Forks (docs/semantics.md): a fork shares its source's log below the boundary instead of copying it
 * (lib/db/tx/log.ts), so its cost does not grow with the chat. A deleted chat whose rows forks still share
 * stays as a tombstone that no query shows, holding only those rows, until no fork needs them.
 */
import { inSpan } from "@/lib/telemetry/trace";
import { getDb } from "./connection";
import { forkTx } from "./tx/fork";
import type { SessionRecord } from "./types";

/** A new session from the source as it was before `invocationId` (or all of it: "Duplicate"). */
export async function forkSession(
  userId: string,
  sessionId: string,
  input: { invocationId?: string; name?: string } = {},
): Promise<SessionRecord> {
  const db = await getDb();
  const fork = () => db.write((tx) => forkTx(tx, userId, sessionId, input));
  return inSpan("retrace.fork", { "retrace.session_id": sessionId }, fork, input.invocationId);
}
