/**
 * The chat's map (docs/semantics.md, "The map"): every turn of its log with its parent, user text, name and
 * pin, whether the chat shows it now, and the chats branching off it. One read, linear in the chat's turns:
 * the log through its pieces, the labels and forks by the chat's id.
 */
import { sql } from "drizzle-orm";
import { eventText } from "@/lib/session/names";
import { type ChatTree, chatTree, type MapLink, type TreeRow } from "@/lib/session/tree";
import { costFrom, usageOf } from "@/lib/session/usage";
import { tailOf } from "@/lib/session/versions";
import { all, combined, type Executor, one, type Statement } from "../database";
import { parseJson, type SessionRow } from "../rows";
import { toEvent } from "./history";
import { labelsOf } from "./labels";
import { invocationsAt, linksOf } from "./layout";
import { inPiece, type Log, logOf, ownFrom } from "./log";
import { liveOf } from "./sessions";

type Row = {
  invocation_id: string;
  after_invocation_id: string | null;
  first_seq: number;
  timestamp: number;
  id: string;
  data: string;
  task: string | null;
  reply_id: string | null;
  reply_data: string | null;
};

/** A turn's model, usage and cost, from its task's metadata (null for a turn without a task, or from before models). */
function taskFacts(task: string | null): Pick<TreeRow, "model" | "usage" | "cost"> {
  const metadata = task ? parseJson<{ metadata?: Record<string, unknown> }>(task).metadata : undefined;
  const model = metadata?.retrace_model;
  return {
    model: typeof model === "string" ? model : null,
    usage: usageOf(metadata?.kagent_usage_metadata),
    cost: costFrom(metadata?.retrace_cost),
  };
}

/**
 * Every turn of the log (no markers) with its first event, which holds the user's message, its last, the agent's
 * answer when the turn ended with one, and its task: one statement per piece.
 */
function turnRows(log: Log): Statement<TreeRow[]> {
  const reads = log.pieces.map((piece) =>
    all<Row>(sql`
      SELECT i.invocation_id, i.after_invocation_id, i.first_seq, e.timestamp, e.id, e.data, i.task, r.id AS reply_id, r.data AS reply_data
      FROM invocations i JOIN events e ON e.session_id = i.session_id AND e.seq = i.first_seq
      LEFT JOIN events r ON r.session_id = i.session_id AND r.seq = i.last_seq AND i.last_seq > i.first_seq
      WHERE ${inPiece(piece, "first_seq", "i")} AND NOT i.is_marker`),
  );
  return combined(reads, (found) =>
    found.flat().map((r) => ({
      invocationId: r.invocation_id,
      parentId: r.after_invocation_id,
      firstSeq: r.first_seq,
      timestamp: Number(r.timestamp),
      text: eventText(toEvent(r)),
      reply: r.reply_id === null || r.reply_data === null ? "" : eventText(toEvent({ id: r.reply_id, data: r.reply_data })),
      ...taskFacts(r.task),
    })),
  );
}

type Linked = Pick<SessionRow, "id" | "name" | "inherited">;

/** The chat's map. */
export async function treeOf(tx: Executor, row: SessionRow): Promise<ChatTree> {
  const log = logOf(row);
  const [turns, labels, markers, forks, source] = await tx.batch([
    turnRows(log),
    labelsOf(row.id),
    linksOf(log),
    all<Linked>(sql`
      SELECT id, name, inherited FROM sessions WHERE forked_from_session_id = ${row.id} AND ${liveOf(row.user_id)} ORDER BY created_at, id`),
    row.forked_from_session_id
      ? one<Linked>(sql`SELECT id, name, inherited FROM sessions WHERE id = ${row.forked_from_session_id} AND ${liveOf(row.user_id)}`)
      : null,
  ]);
  // Where another chat's conversation leaves this one: this log's tail just below the fork's boundary
  // (a fork keeps its source's seqs below it), for a fork of this chat and for this chat's own source.
  const anchorSeq = (fork: Pick<SessionRow, "id" | "inherited">) => tailOf(ownFrom(logOf(fork)) - 1, markers);
  const anchors = await invocationsAt(tx, log, [row.tail_seq, ...forks.map(anchorSeq), ...(source ? [anchorSeq(row)] : [])]);
  const link = (linked: Linked, seq: number): MapLink => ({
    session_id: linked.id,
    name: linked.name,
    after_invocation_id: anchors.get(seq)?.invocationId ?? null,
  });
  return chatTree(turns, anchors.get(row.tail_seq)?.invocationId ?? null, labels, {
    forks: forks.map((fork) => link(fork, anchorSeq(fork))),
    source: source ? link(source, anchorSeq(row)) : null,
  });
}
