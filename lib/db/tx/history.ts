/** Reading the event log back: the raw log or the effective history, whole or a page at a time. */
import { sql } from "drizzle-orm";
import type { AdkEvent, Segment } from "@/lib/session/types";
import type { Executor } from "../database";
import { decodeCursor, type Page, type PageRequest, pageOf } from "../paging";
import type { SessionRow } from "../rows";
import { effectiveLayout } from "./layout";
import { eventIdIn, inPiece, type Log, logOf, piecesIn } from "./log";

interface EventRow {
  seq: number;
  id: string;
  data: string;
}

/** The stored JSON leaves the id to its column: a fork shows shared rows under new ids (lib/db/tx/log.ts). */
export function toEvent(row: Pick<EventRow, "id" | "data">): AdkEvent {
  const { id: _stale, ...event } = JSON.parse(row.data) as AdkEvent;
  return { id: row.id, ...event };
}

/** The log's events in `range`, newest first, at most `limit`; ids as the log shows them. */
async function rangeEvents(tx: Executor, log: Log, range: Segment, limit?: number) {
  const rows: EventRow[] = [];
  for (const piece of piecesIn(log, range).reverse()) {
    const found = await tx.all<EventRow>(sql`
      SELECT seq, id, data FROM events WHERE ${inPiece(piece)}
      ORDER BY seq DESC ${limit === undefined ? sql`` : sql`LIMIT ${limit - rows.length}`}`);
    rows.push(...found.map((r) => ({ ...r, id: eventIdIn(log, piece.session, r.id) })));
    if (limit !== undefined && rows.length >= limit) break;
  }
  return rows;
}

/**
 * The raw log or the effective history (rewound events left out) of `row` as it was read, all of it or
 * one page: the last `limit` events before the cursor, found by walking the effective ranges from the end.
 * Events appended after `row` was read are never included, whatever this transaction wrote since.
 */
export async function readEvents(tx: Executor, row: SessionRow, view: "all" | "effective", page?: PageRequest): Promise<Page<AdkEvent>> {
  const before = decodeCursor(page?.before);
  const ranges: Segment[] = view === "all" ? [[1, row.last_seq]] : (await effectiveLayout(tx, row)).segments;
  const wanted = page ? page.limit + 1 : undefined;
  const newestFirst: EventRow[] = [];
  for (const [from, to] of [...ranges].reverse()) {
    if (from >= before) continue;
    const remaining = wanted === undefined ? undefined : wanted - newestFirst.length;
    newestFirst.push(...(await rangeEvents(tx, logOf(row), [from, Math.min(to, before - 1)], remaining)));
    if (wanted !== undefined && newestFirst.length >= wanted) break;
  }
  const { items, nextBefore } = pageOf(newestFirst, page?.limit ?? newestFirst.length, (e) => e.seq);
  return { items: items.map(toEvent), nextBefore };
}
