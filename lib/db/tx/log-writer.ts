/** What an append writes to the log, held until the batch ends and written in a few statements. */
import { type SQL, sql } from "drizzle-orm";
import type { AdkEvent } from "@/lib/session/types";
import type { InvocationNode } from "@/lib/session/versions";
import type { Executor } from "../database";
import { type IndexEntry, searchColumns, type searchRows } from "./search-index";

/**
 * What a batch writes to the log, held until the batch ends: its events with their index rows, and its new
 * invocations with their last seq already known, one statement each; invocations that began before only
 * have their last seq moved.
 */
export function logWriter(tx: Executor, sessionId: string) {
  const events: { seq: number; values: SQL; entry: IndexEntry | null }[] = [];
  const begun = new Map<string, { node: InvocationNode; lastSeq: number; task?: SQL }>();
  const extended = new Map<string, number>();
  return {
    /** A new invocation; `task`, the values of its task's columns when its task is stored with it. */
    begin(node: InvocationNode, task?: SQL) {
      begun.set(node.invocationId, { node, lastSeq: node.firstSeq, task });
    },
    add(
      seq: number,
      event: AdkEvent,
      data: string,
      stateDelta: string | null,
      artifactDelta: string | null,
      parent: number | null,
      entry: IndexEntry | null,
    ) {
      const values = sql`${sessionId}, ${seq}, ${event.id}, ${event.invocation_id}, ${event.author}, ${event.timestamp}, ${data},
        ${stateDelta}, ${artifactDelta}, ${parent}`;
      events.push({ seq, values, entry });
      const pending = begun.get(event.invocation_id);
      if (pending) pending.lastSeq = seq;
      else extended.set(event.invocation_id, seq);
    },
    /** The events' index entries, in order (`searchRows` makes their rows). */
    entries: () => events.map((e) => e.entry),
    /** Everything held, as statements for the batch's last write. */
    statements(search: Awaited<ReturnType<typeof searchRows>>) {
      const statements: SQL[] = [];
      if (events.length > 0) {
        const rows = events.map((e) => sql`(${e.values}, ${search.values(e.seq, e.entry)})`);
        statements.push(sql`
          INSERT INTO events (session_id, seq, id, invocation_id, author, timestamp, data, state_delta, artifact_delta, marker_parent,
            ${searchColumns(tx)})
          VALUES ${sql.join(rows, sql`, `)}`);
        statements.push(...search.statements());
      }
      if (begun.size > 0) {
        const withTask = [...begun.values()].some((b) => b.task);
        const rows = [...begun.values()].map(
          ({ node, lastSeq, task }) =>
            sql`(${sessionId}, ${node.invocationId}, ${node.firstSeq}, ${lastSeq}, ${node.afterInvocationId}, ${node.depth}, ${node.isMarker}${
              withTask ? sql`, ${task ?? sql`NULL, NULL, NULL`}` : sql``
            })`,
        );
        statements.push(sql`
          INSERT INTO invocations (session_id, invocation_id, first_seq, last_seq, after_invocation_id, depth, is_marker${
            withTask ? sql.raw(", task_id, task, message_id") : sql``
          })
          VALUES ${sql.join(rows, sql`, `)}`);
      }
      for (const [invocationId, last] of extended) {
        statements.push(sql`UPDATE invocations SET last_seq = ${last} WHERE session_id = ${sessionId} AND invocation_id = ${invocationId}`);
      }
      return statements;
    },
  };
}
