/** The siblings of turns (docs/semantics.md, "Versions"). */
import { sql } from "drizzle-orm";
import { type Executor, together } from "../database";
import { inPiece, type Log } from "./log";
import { userTexts } from "./task-reads";

export interface Siblings {
  retrace_siblings: {
    /** 1-based position of this invocation among its siblings. */
    index: number;
    invocation_ids: string[];
    /** Every sibling starts with the same user text: they are regenerations of one message. */
    regenerations: boolean;
  };
}

/** For each of `rows` that has siblings (invocations with the same parent), its place among them. */
export async function siblingsOf(
  tx: Executor,
  log: Log,
  rows: { invocation_id: string; after_invocation_id?: string | null }[],
): Promise<Map<string, Siblings>> {
  const result = new Map<string, Siblings>();
  if (rows.length === 0) return result;
  const parents = [...new Set(rows.map((r) => r.after_invocation_id ?? null))];
  const named = parents.filter((p): p is string => p !== null);
  // Two plain index lookups (an OR, or an ORDER BY, sends both dialects' planners scanning).
  const children = async (parent: ReturnType<typeof sql>) => {
    const found: { invocation_id: string; after_invocation_id: string | null; first_seq: number }[] = [];
    for (const piece of log.pieces) {
      found.push(
        ...(await tx.all<(typeof found)[number]>(sql`
          SELECT invocation_id, after_invocation_id, first_seq FROM invocations
          WHERE ${inPiece(piece, "first_seq", "", "filter")} AND ${parent} AND NOT is_marker`)),
      );
    }
    return found;
  };
  const inList = sql.join(
    named.map((p) => sql`${p}`),
    sql`, `,
  );
  // A long listing asks for most of the tree: reading all of it is cheaper than a huge IN list.
  const all = (
    parents.length > 200
      ? await children(sql`true`)
      : (
          await together([
            named.length ? children(sql`after_invocation_id IN (${inList})`) : [],
            parents.includes(null) ? children(sql`after_invocation_id IS NULL`) : [],
          ])
        ).flat()
  ).sort((a, b) => a.first_seq - b.first_seq);
  const groups = new Map<string | null, string[]>();
  for (const s of all) groups.set(s.after_invocation_id, [...(groups.get(s.after_invocation_id) ?? []), s.invocation_id]);
  const branching = [...groups.values()].filter((ids) => ids.length > 1);
  const texts = await userTexts(tx, log, branching.flat());
  for (const ids of branching) {
    const regenerations = new Set(ids.map((id) => texts.get(id) ?? "")).size === 1;
    ids.forEach((id, i) => {
      result.set(id, { retrace_siblings: { index: i + 1, invocation_ids: ids, regenerations } });
    });
  }
  return result;
}
