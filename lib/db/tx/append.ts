/** Appending to the event log, inside the caller's transaction: sequence numbers, state, the invocation tree. */
import { type SQL, sql } from "drizzle-orm";
import { InvalidReferenceError, ValidationError } from "@/lib/errors";
import { markerParent, rewindTarget } from "@/lib/session/effective-history";
import { NEW_CHAT } from "@/lib/session/names";
import { applyDelta, parseState, splitDelta, USER_PREFIX } from "@/lib/session/state";
import type { AdkEvent, ArtifactDelta } from "@/lib/session/types";
import { type InvocationNode, placeInvocation, tailAfterMarker } from "@/lib/session/versions";
import type { Task } from "@/lib/task/types";
import { chained, type Executor, inBatches, typedValues } from "../database";
import type { SessionRow } from "../rows";
import { artifactScope } from "./artifacts";
import { checkpointBytes, eventBytes, invocationBytes } from "./bytes";
import { type Ahead, invocationAt, invocationNodes, markerLinks, nodesAndTail } from "./layout";
import { logOf, ownFrom } from "./log";
import { logWriter } from "./log-writer";
import { entryBytes, indexEntry, searchRows } from "./search-index";
import { nameOfLog, refreshAutoName, refuseAppScope } from "./sessions";
import { applyScopedDelta, CHECKPOINT_EVERY } from "./state";
import { storeTaskTx, taskColumns } from "./tasks";
import { checkQuota, type UserTouched, userTouch } from "./users";

/** Invocations an append looks up in its first statement; a batch naming more finds the rest in one more. */
const MAX_LOOKED_UP = 100;

/** The invocations a batch names: its events' and their rewind targets. */
const namedIn = (input: AdkEvent[]) => [...new Set(input.flatMap((e) => [e.invocation_id, rewindTarget(e)]).filter((id) => id !== null))];

/** Those looked up with the tail's node before the batch is appended. */
export const lookedUp = (input: AdkEvent[]) => namedIn(input).slice(0, MAX_LOOKED_UP);

/** Every file version `delta` refers to exists (one query per batch of files, whatever the delta's size). */
async function requireArtifactVersions(tx: Executor, row: LogRow, delta: ArtifactDelta, sessionFilesOnly = false) {
  const named = Object.entries(delta).filter(([filename]) => !sessionFilesOnly || !filename.startsWith(USER_PREFIX));
  for (const wanted of inBatches(named)) {
    const rows = typedValues(
      wanted.map(([filename, version]) => [artifactScope(row, filename), filename, version]),
      ["TEXT", "TEXT", "INTEGER"],
    );
    const found = await tx.all<{ filename: string; version: number }>(sql`
      WITH wanted (scope, filename, version) AS (VALUES ${rows})
      SELECT w.filename, w.version FROM wanted w
        JOIN artifacts a ON a.scope = w.scope AND a.filename = w.filename AND a.version = w.version`);
    const exists = new Set(found.map((f) => `${Number(f.version)}/${f.filename}`));
    const missing = wanted.find(([filename, version]) => !exists.has(`${version}/${filename}`));
    if (missing) throw new InvalidReferenceError(`Artifact ${missing[0]} has no version ${missing[1]}`);
  }
}

/**
 * Appends events in order inside the caller's transaction: sequence numbers, state deltas per scope
 * (`temp:` dropped, `app:` refused), artifact references checked, rewind markers linked, each new
 * invocation placed in the tree, each event's words indexed for search (in the statements that store it),
 * and the session's state, tail, activity and byte count updated. Every event is stored through here.
 * `also` is what the caller writes with them, in the same statements: session columns to set (a turn's
 * lease, or its release), bytes it stored itself (the files a rewind restored), and a new turn's task
 * (inserted with the invocation the batch begins for it, one statement fewer). `imported` events are a
 * copied log (an archive, a shared chat): their `user:` deltas stay in them as history but are not applied
 * (the user's state is the importer's own), and only their session files must exist.
 */
export async function appendEventsTx(
  tx: Executor,
  row: LogRow,
  input: AdkEvent[],
  also: {
    set?: SQL;
    bytes?: number;
    task?: { task: Task; messageId?: string };
    tail?: InvocationNode;
    ahead?: Ahead;
    imported?: boolean;
  } = {},
): Promise<{ events: AdkEvent[]; cursor?: LogCursor }> {
  refuseAppScope(input.flatMap((e) => Object.keys(e.actions?.state_delta ?? {})));
  const state = parseState(row.state);
  const log = logOf(row);
  const start = also.tail
    ? { nodes: new Map([[also.tail.invocationId, also.tail]]), tailNode: also.tail }
    : row.last_seq === 0 // an empty log (a new chat) has no invocations to look up
      ? { nodes: new Map(namedIn(input).map((id) => [id, null])), tailNode: null }
      : also.ahead && !row.inherited && also.ahead.tail === row.tail_seq && also.ahead.lastSeq === row.last_seq
        ? also.ahead
        : await nodesAndTail(tx, log, lookedUp(input), row.tail_seq);
  const known = new Map<string, InvocationNode | null>(start.nodes);
  // The rest of the invocations the batch names, looked up together rather than one by one as met.
  for (const batch of inBatches(namedIn(input).filter((id) => !known.has(id)))) {
    for (const [id, found] of await invocationNodes(tx, log, batch)) known.set(id, found);
  }
  const node = (invocationId: string) => known.get(invocationId) ?? null;
  let seq = row.last_seq;
  let tail = row.tail_seq;
  let tailNode: InvocationNode | null | undefined = start.tailNode;
  /** The invocation of each event of the batch, by seq - row.last_seq - 1: where a tail inside the batch is. */
  const batchInvocations: string[] = [];
  /** The invocations holding seqs before the batch that tails went back to: markers often go back to the same one. */
  const earlier = new Map<number, Promise<InvocationNode | null>>();
  const earlierAt = (at: number) => {
    if (!earlier.has(at)) earlier.set(at, invocationAt(tx, log, at));
    return earlier.get(at) as Promise<InvocationNode | null>;
  };
  /** Every rewind marker's link (seq → where the walk continues), read once when the batch holds a marker. */
  let links: Map<number, number> | undefined;
  /** Bytes of the chat's rows this append adds (or, for a state that shrank, takes away), and of the user's `user:` state. */
  let bytes = also.bytes ?? 0;
  let userBytes = 0;
  const stored: AdkEvent[] = [];
  const writer = logWriter(tx, row.id);
  const newTask = also.task && taskColumns(also.task.task, also.task.messageId);
  let taskBegun = false;
  for (const original of input) {
    seq += 1;
    const parts = splitDelta(original.actions?.state_delta);
    const artifactDelta: ArtifactDelta = original.actions?.artifact_delta ?? {};
    await requireArtifactVersions(tx, row, artifactDelta, also.imported);
    const event: AdkEvent = { ...original, actions: { ...original.actions, state_delta: { ...parts.session, ...parts.user } } };
    applyDelta(state, parts.session);
    if (!also.imported) userBytes += await applyScopedDelta(tx, row.user_id, row.agent, parts.user);
    const target = rewindTarget(event);
    const existing = node(event.invocation_id);
    // Rows a fork shares never change: neither the fork's inherited ones nor the source's shared ones.
    if (existing && (existing.firstSeq < ownFrom(log) || existing.firstSeq <= row.shared_until)) {
      throw new ValidationError(`Invocation ${event.invocation_id} is shared with a fork: it takes no more events`);
    }
    if (!existing) {
      tailNode ??= tail > row.last_seq ? node(batchInvocations[tail - row.last_seq - 1]) : await earlierAt(tail);
      const placement = placeInvocation(event.invocation_id, seq, target !== null, tailNode);
      known.set(event.invocation_id, placement);
      const withTask = placement.invocationId === newTask?.invocationId;
      taskBegun ||= withTask;
      bytes += invocationBytes(placement.invocationId, placement.afterInvocationId) + (withTask ? newTask.bytes : 0);
      writer.begin(placement, withTask ? newTask.values : undefined);
    }
    batchInvocations.push(event.invocation_id);
    const { id: _id, ...body } = event;
    const data = JSON.stringify(body);
    const parent = target ? markerParent(seq, node(target)?.firstSeq ?? null) : null;
    const sessionDelta = Object.keys(parts.session).length ? JSON.stringify(parts.session) : null;
    const artifactJson = Object.keys(artifactDelta).length ? JSON.stringify(artifactDelta) : null;
    // Indexed here, with the event: the index cannot drift from the log (lib/db/tx/search-index.ts).
    const entry = indexEntry(row.user_id, event);
    bytes += eventBytes(event, data, sessionDelta, artifactJson) + entryBytes(entry);
    writer.add(seq, event, data, sessionDelta, artifactJson, parent, entry);
    if (parent !== null) {
      links ??= new Map(row.last_seq === 0 ? [] : (await markerLinks(tx, log, row.last_seq)).map((m) => [m.seq, m.parent]));
      links.set(seq, parent);
      tail = tailAfterMarker(parent, links);
      tailNode = undefined;
    } else {
      tail = seq;
      tailNode = node(event.invocation_id);
    }
    if (seq % CHECKPOINT_EVERY === 0) {
      const checkpoint = JSON.stringify(state);
      bytes += checkpointBytes(checkpoint);
      await tx.run(sql`INSERT INTO state_checkpoints (session_id, seq, state) VALUES (${row.id}, ${seq}, ${checkpoint})`);
    }
    stored.push(event);
  }
  const renamed = !row.named_by_user && (row.name === NEW_CHAT || stored.some(rewindTarget));
  // A chat that was empty is named from this batch alone when it has no marker: nothing to read back.
  const logName = renamed && row.last_seq === 0 && !stored.some(rewindTarget) ? nameOfLog(stored) : undefined;
  const firstName = logName !== row.name ? logName : undefined;
  const next = { state: JSON.stringify(state), last_seq: seq, tail_seq: tail, name: firstName ?? row.name };
  bytes += Buffer.byteLength(next.state) - Buffer.byteLength(row.state);
  const laterTask = also.task && !taskBegun ? also.task : undefined;
  if (laterTask) bytes += taskColumns(laterTask.task, laterTask.messageId).bytes;
  const search = await searchRows(tx, row.id, writer.entries());
  // The log's last rows, the user's counters and the session's row: one statement on PostgreSQL.
  const [[touched]] = await tx.batch([
    chained<UserTouched>(userTouch(row.user_id, bytes + userBytes), (returned) => [
      ...writer.statements(search),
      sql`
        UPDATE sessions SET state = ${next.state}, last_seq = ${seq}, tail_seq = ${tail}, updated_at = ${Date.now()},
          activity = ${returned("activity")}, stored_bytes = stored_bytes + ${bytes}${firstName ? sql`, name = ${firstName}` : sql``}${
            also.set ? sql`, ${also.set}` : sql``
          }
        WHERE id = ${row.id}`,
    ]),
  ]);
  checkQuota(row.user_id, touched, bytes + userBytes);
  if (laterTask) await storeTaskTx(tx, row, laterTask.task, laterTask.messageId);
  if (renamed && logName === undefined) {
    await refreshAutoName(tx, row.id);
    return { events: stored };
  }
  return { events: stored, cursor: tailNode ? { row: { ...row, ...next }, tail: tailNode } : undefined };
}

/** The columns of a session's row that an append reads. */
export const LOG_COLUMNS = [
  "id",
  "user_id",
  "agent",
  "state",
  "last_seq",
  "tail_seq",
  "inherited",
  "shared_until",
  "name",
  "named_by_user",
] as const;

export type LogRow = Pick<SessionRow, (typeof LOG_COLUMNS)[number]>;

/**
 * What an append leaves its writer for the next one: those columns as the append left them, and the
 * node of the invocation at its tail. A running turn, which alone appends to its session, computes its
 * next append from it instead of reading both back (lib/db/turn-writes.ts).
 */
export interface LogCursor {
  row: LogRow;
  tail: InvocationNode;
}
