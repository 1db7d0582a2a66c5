/** Cursor paging (docs/api.md, "Paging"): the last `limit` items before an opaque cursor. */
import { ValidationError } from "@/lib/errors";

export interface PageRequest {
  limit: number;
  /** A cursor from an earlier page's `nextBefore`; absent for the last page. */
  before?: string;
}

export interface Page<T> {
  items: T[];
  /** The cursor of the next (earlier) page; null when nothing is earlier. */
  nextBefore: string | null;
}

/** Past every position: seqs and positions are 32-bit integer columns on PostgreSQL. */
export const UNBOUNDED = 2_147_483_647;

/** Cursors wrap one position number; clients must treat them as opaque. */
export const encodeCursor = (position: number) => Buffer.from(`p${position}`).toString("base64url");

export function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return UNBOUNDED;
  const match = /^p(\d{1,15})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!match) throw new ValidationError("`before` is not a cursor this API gave out");
  return Number(match[1]);
}

/**
 * Turns items fetched newest first (at most `limit + 1`, the extra one proving something is earlier)
 * into a chronological page.
 */
export function pageOf<T>(newestFirst: T[], limit: number, position: (item: T) => number): Page<T> {
  const items = newestFirst.slice(0, limit).reverse();
  return { items, nextBefore: newestFirst.length > limit && items.length ? encodeCursor(position(items[0])) : null };
}
