/** A page of a chat's events or tasks as an archive holds them (lib/db/archive-export.ts), in the caller's read. */
import { sql } from "drizzle-orm";
import type { ArchiveEvent, ArchiveTask } from "@/lib/archive/format";
import type { Executor } from "../database";
import { parseJson, type SessionRow } from "../rows";
import { toEvent } from "./history";
import { eventIdIn, inPiece, inPieces, logOf, piecesIn, taskIdIn } from "./log";

export async function eventPage(
  tx: Executor,
  row: Pick<SessionRow, "id" | "inherited">,
  from: number,
  to: number,
): Promise<ArchiveEvent[]> {
  const log = logOf(row);
  const rows = await tx.all<{ session_id: string; seq: number; id: string; data: string }>(sql`
    SELECT session_id, seq, id, data FROM events WHERE ${inPieces(piecesIn(log, [from, to]))} ORDER BY seq`);
  return rows.map((r) => ({ seq: Number(r.seq), ...toEvent({ id: eventIdIn(log, r.session_id, r.id), data: r.data }) }));
}

export async function taskPage(tx: Executor, row: Pick<SessionRow, "id" | "inherited">, from: number, to: number): Promise<ArchiveTask[]> {
  const log = logOf(row);
  const tasks: ArchiveTask[] = [];
  for (const piece of piecesIn(log, [from, to])) {
    const rows = await tx.all<{ invocation_id: string; task_id: string; message_id: string | null; task: string }>(sql`
      SELECT invocation_id, task_id, message_id, task FROM invocations
      WHERE ${inPiece(piece, "first_seq")} AND task IS NOT NULL ORDER BY first_seq`);
    for (const r of rows) {
      tasks.push({
        invocation_id: r.invocation_id,
        task_id: taskIdIn(log, piece.session, r.task_id),
        // As in a fork (docs/semantics.md): a retried send matches only the chat's own turns.
        message_id: piece.session === log.id ? r.message_id : null,
        task: parseJson<ArchiveTask["task"]>(r.task),
      });
    }
  }
  return tasks;
}
