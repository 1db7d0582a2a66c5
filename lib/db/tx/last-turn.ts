/**
 * A send from a stale view: a client that says which turn it shows last (A2A metadata
 * `retrace_last_invocation_id`) is refused when the chat has changed since, instead of sending into a
 * history its user has not seen (docs/api.md, "Sending from a stale view").
 */
import { sql } from "drizzle-orm";
import { HistoryChangedError } from "@/lib/errors";
import type { Executor } from "../database";
import type { SessionRow } from "../rows";
import type { Ahead } from "./layout";
import { effectiveLayout, invocationAt } from "./layout";
import { inPiece, logOf, piecesIn } from "./log";

/** The last turn of the effective history that has a task: what a chat's client shows last (null: none). */
async function lastTaskTurn(tx: Executor, row: SessionRow): Promise<string | null> {
  const log = logOf(row);
  for (const segment of [...(await effectiveLayout(tx, row)).segments].reverse()) {
    for (const piece of piecesIn(log, segment).reverse()) {
      const found = await tx.one<{ invocation_id: string }>(sql`
        SELECT invocation_id FROM invocations
        WHERE ${inPiece(piece, "first_seq")} AND task IS NOT NULL AND NOT is_marker ORDER BY first_seq DESC LIMIT 1`);
      if (found) return found.invocation_id;
    }
  }
  return null;
}

/**
 * Refuses (409 `history_changed`) unless `expected` is the chat's last visible turn. Usually that is the
 * turn at the tail, looked up already (`ahead`, when it was read from this row) or here; when the tail
 * differs it may be a turn without a task (events appended through the API), which no client shows: then
 * the last turn with a task decides.
 */
export async function checkLastTurn(tx: Executor, row: SessionRow, ahead: Ahead | undefined, expected: string | null) {
  const fresh = ahead && !row.inherited && ahead.tail === row.tail_seq && ahead.lastSeq === row.last_seq;
  const tail = fresh ? ahead.tailNode : await invocationAt(tx, logOf(row), row.tail_seq);
  if ((tail?.invocationId ?? null) === expected) return;
  if ((await lastTaskTurn(tx, row)) !== expected) throw new HistoryChangedError();
}
