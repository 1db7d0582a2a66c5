/** Checks a database against what the store promises; used by the reliability tests and scripts/check-db.ts. */
import { sql } from "drizzle-orm";
import { markerParent, rewindTarget } from "@/lib/session/effective-history";
import { indexedWords, searchableText, snippetSource } from "@/lib/session/search-text";
import { deepEqual, parseState, replayState, splitDelta } from "@/lib/session/state";
import type { AdkEvent, StateDelta } from "@/lib/session/types";
import { buildInvocationTree } from "@/lib/session/versions";
import { all, type Database, type Executor, one } from "../database";
import type { SessionRow } from "../rows";
import { toEvent } from "./history";
import { eventIdIn, inPieces, joined, lastSeqIn, logOf, ownFrom } from "./log";
import { ownerKey } from "./search-index";
import { waitingTask } from "./tasks";

interface EventRow {
  session_id: string;
  seq: number;
  id: string;
  invocation_id: string;
  data: string;
  state_delta: string | null;
  marker_parent: number | null;
}

/** Every broken promise found, as readable lines; empty means consistent. Reads one snapshot; `only`: just these chats. */
export async function checkInvariants(db: Database, only?: string[]): Promise<string[]> {
  return db.read(async (tx) => {
    const problems: string[] = [];
    if (tx.dialect.name === "sqlite") {
      // FTS5's part of the check reads its segments through the structure this connection read last; after other
      // processes wrote, that may name segments they merged away ("corruption found reading blob"), though the
      // file is sound. A query reads the structure afresh, in this snapshot.
      await tx.all(sql`SELECT rowid FROM search_fts WHERE search_fts MATCH '"_"' LIMIT 1`);
      const integrity = await tx.one<{ integrity_check: string }>(sql`PRAGMA integrity_check`);
      if (integrity?.integrity_check !== "ok") problems.push(`integrity_check: ${integrity?.integrity_check}`);
    }
    const sessions = await tx.all<SessionRow>(sql`SELECT * FROM sessions`);
    for (const s of only ? sessions.filter((r) => only.includes(r.id)) : sessions) {
      // A chat an upload is still writing, or removing in parts, is checked once it is shown.
      if (s.import_lease_until !== null) continue;
      if (s.deleted_at === null) await checkSession(tx, s, problems);
      else await checkTombstone(tx, s, sessions, problems);
      await checkNoneWaitsInherited(tx, s, problems);
      if (s.search_indexed) await checkSearchRows(tx, s, problems);
    }
    if (tx.dialect.name === "sqlite" && !only) {
      const [fts, indexed] = await tx.batch([
        one<{ n: number }>(sql`SELECT COUNT(*) AS n FROM search_fts`),
        one<{ n: number }>(sql`SELECT COUNT(*) AS n FROM events WHERE search_pos IS NOT NULL`),
      ]);
      if (fts?.n !== indexed?.n) problems.push(`search_fts holds ${fts?.n} rows for ${indexed?.n} indexed events`);
    }
    const gaps = await tx.all<{ scope: string; filename: string }>(sql`
      SELECT scope, filename FROM artifacts GROUP BY scope, filename HAVING MIN(version) != 0 OR MAX(version) != COUNT(*) - 1`);
    for (const g of gaps) problems.push(`artifact ${g.scope}/${g.filename}: versions are not 0..n`);
    if (!only) await checkBlobs(tx, problems);
    return problems;
  });
}

/** A turn waiting for a decision is never in rows forks inherit (they copy it): it could be decided nowhere (lib/db/tx/fork.ts). */
async function checkNoneWaitsInherited(tx: Executor, s: SessionRow, problems: string[]) {
  const inherited = Math.max(Number(s.shared_until), ownFrom(logOf(s)) - 1);
  const frozen = await tx.all<{ invocation_id: string }>(sql`
    SELECT invocation_id FROM invocations WHERE session_id = ${s.id} AND first_seq <= ${inherited} AND ${waitingTask(tx)}`);
  for (const f of frozen) problems.push(`session ${s.id}: turn ${f.invocation_id} waits for a decision in rows forks inherit`);
}

/** A deleted chat kept for its forks: live chats read it, and it holds only rows they read. */
async function checkTombstone(tx: Executor, s: SessionRow, sessions: SessionRow[], problems: string[]) {
  const say = (what: string) => problems.push(`tombstone ${s.id}: ${what}`);
  const read = joined(
    sessions.filter((r) => r.deleted_at === null && r.id !== s.id).flatMap((r) => logOf(r).pieces.filter((p) => p.session === s.id)),
  );
  if (read.length === 0) return say("no live chat reads it");
  const unread = await tx.one<{ n: number }>(sql`SELECT COUNT(*) AS n FROM events WHERE session_id = ${s.id} AND NOT (${inPieces(read)})`);
  if (Number(unread?.n) > 0) say(`holds ${unread?.n} events no live chat reads`);
  const files = await tx.one<{ n: number }>(sql`SELECT COUNT(*) AS n FROM artifacts WHERE scope = ${s.id}`);
  if (Number(files?.n) > 0) say("still holds files");
  const labels = await tx.one<{ n: number }>(sql`SELECT COUNT(*) AS n FROM version_labels WHERE session_id = ${s.id}`);
  if (Number(labels?.n) > 0) say("still holds names and pins");
}

async function checkSession(tx: Executor, s: SessionRow, problems: string[]) {
  const say = (what: string) => problems.push(`session ${s.id}: ${what}`);
  // A fork's log includes the rows it shares with its source, shown under their new ids.
  const log = logOf(s);
  for (const [i, piece] of log.pieces.entries()) {
    if (piece.from !== (i === 0 ? 1 : log.pieces[i - 1].to + 1)) say(`piece ${i} starts at ${piece.from}`);
    if (!(await tx.one(sql`SELECT id FROM sessions WHERE id = ${piece.session}`))) say(`piece ${i} is in a deleted session`);
  }
  const events = (
    await tx.all<EventRow>(sql`
      SELECT session_id, seq, id, invocation_id, data, state_delta, marker_parent FROM events WHERE ${inPieces(log.pieces)} ORDER BY seq`)
  ).map((e) => ({ ...e, id: eventIdIn(log, e.session_id, e.id) }));
  const checkpoints = new Map(
    (await tx.all<{ seq: number; state: string }>(sql`SELECT seq, state FROM state_checkpoints WHERE ${inPieces(log.pieces)}`)).map((c) => [
      c.seq,
      c.state,
    ]),
  );
  const firstSeq = new Map<string, number>();
  const ids = new Set<string>();
  const deltas: StateDelta[] = [];
  for (const [i, row] of events.entries()) {
    if (row.seq !== i + 1) say(`seq ${row.seq} where ${i + 1} was expected`);
    if (ids.has(row.id)) say(`event id ${row.id} appears twice`);
    ids.add(row.id);
    const event: AdkEvent = toEvent(row);
    if (event.invocation_id !== row.invocation_id) say(`event ${row.seq}: invocation column disagrees with its JSON`);
    const session = splitDelta(event.actions?.state_delta).session;
    if (!deepEqual(session, row.state_delta ? JSON.parse(row.state_delta) : {}))
      say(`event ${row.seq}: state_delta column disagrees with its JSON`);
    deltas.push(session);
    const target = rewindTarget(event);
    const expected = target ? markerParent(row.seq, firstSeq.get(target) ?? null) : null;
    if (row.marker_parent !== expected) say(`event ${row.seq}: marker_parent ${row.marker_parent}, expected ${expected}`);
    if (!firstSeq.has(row.invocation_id)) firstSeq.set(row.invocation_id, row.seq);
    const checkpoint = checkpoints.get(row.seq);
    if (checkpoint && !deepEqual(parseState(checkpoint), replayState(parseState(s.initial_state), deltas))) {
      say(`checkpoint at ${row.seq} differs from a replay`);
    }
  }
  if (s.last_seq !== events.length) say(`last_seq ${s.last_seq} but ${events.length} events`);
  const turns = new Set(events.filter((e) => e.marker_parent === null).map((e) => e.invocation_id));
  for (const l of await tx.all<{ invocation_id: string }>(sql`SELECT invocation_id FROM version_labels WHERE session_id = ${s.id}`)) {
    if (!turns.has(l.invocation_id)) say(`label on ${l.invocation_id}, no turn of the chat`);
  }
  if (!deepEqual(parseState(s.state), replayState(parseState(s.initial_state), deltas))) say("state differs from a fresh replay");
  if (s.tree_built) {
    const stored = await tx.all<Record<string, unknown>>(
      sql`SELECT * FROM invocations WHERE ${inPieces(log.pieces, "first_seq")} ORDER BY first_seq`,
    );
    checkTree(
      s,
      events,
      stored.map((r) => ({ ...r, last_seq: lastSeqIn(log, r.first_seq as number, r.last_seq as number) })),
      say,
    );
  }
}

/**
 * Each event the session stores is indexed with exactly its words, under a key of the chat's owner, and keeps
 * exactly the texts and marks its snippets are cut from (lib/db/tx/search-index.ts).
 */
async function checkSearchRows(tx: Executor, s: SessionRow, problems: string[]) {
  const keys = [
    ownerKey(s.user_id),
    ...(await tx.all<{ key: string }>(sql`SELECT key FROM search_keys WHERE user_id = ${s.user_id}`)).map((k) => k.key),
  ];
  const [rows, parts, marks] = await tx.batch([
    all<{ seq: number; data: string; search_pos: number | null; search_owner?: string; doc?: string }>(
      tx.dialect.name === "sqlite"
        ? sql`SELECT seq, data, search_pos FROM events WHERE session_id = ${s.id}`
        : sql`SELECT seq, data, search_pos, search_owner, CAST(search_doc AS text) AS doc FROM events WHERE session_id = ${s.id}`,
    ),
    all<{ seq: number; text: string }>(sql`SELECT seq, text FROM search_texts WHERE session_id = ${s.id} ORDER BY seq, part`),
    all<{ seq: number; initials: string; marks: string }>(sql`SELECT seq, initials, marks FROM search_marks WHERE session_id = ${s.id}`),
  ]);
  const bySeq = <T extends { seq: number }>(kept: T[]) => {
    const of = new Map<number, T[]>();
    for (const k of kept) {
      const list = of.get(k.seq);
      if (list) list.push(k);
      else of.set(k.seq, [k]);
    }
    return of;
  };
  const [partsOf, marksOf] = [bySeq(parts), bySeq(marks)];
  for (const row of rows) {
    const markdown = searchableText(JSON.parse(row.data));
    const words = indexedWords(markdown)?.split(" ") ?? [];
    let indexed: string[] = [];
    if (tx.dialect.name === "postgres") {
      indexed = row.doc ? [...row.doc.matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1].replaceAll("''", "'")) : [];
      if (row.doc && (!row.search_owner || !keys.includes(row.search_owner) || !indexed.includes(row.search_owner))) indexed = ["?"];
      indexed = indexed.filter((w) => w !== row.search_owner);
    } else if (row.search_pos !== null) {
      const match = [`(${keys.map((k) => `"${k}"`).join(" OR ")})`, ...words.map((w) => `"${w}"`)].join(" AND ");
      indexed = (await tx.one(sql`SELECT rowid FROM search_fts WHERE search_fts MATCH ${match} AND rowid = ${row.search_pos}`))
        ? words
        : ["?"];
    }
    if (!deepEqual([...indexed].sort(), [...words].sort()))
      problems.push(`session ${s.id}: event ${row.seq} is not indexed with its words`);
    const source = words.length ? snippetSource(markdown) : { parts: [], marks: new Map<string, string>() };
    const byInitials = (a: string[], b: string[]) => (a[0] < b[0] ? -1 : 1);
    const kept = {
      parts: (partsOf.get(row.seq) ?? []).map((p) => p.text),
      marks: (marksOf.get(row.seq) ?? []).map((m) => [m.initials, m.marks]),
    };
    if (!deepEqual({ ...kept, marks: kept.marks.sort(byInitials) }, { parts: source.parts, marks: [...source.marks].sort(byInitials) }))
      problems.push(`session ${s.id}: event ${row.seq} does not keep its snippets' text`);
  }
}

/** The stored invocation tree and tail must equal one replay of the log. */
function checkTree(s: SessionRow, events: EventRow[], stored: Record<string, unknown>[], say: (what: string) => void) {
  const replay = buildInvocationTree(events.map((e) => ({ seq: e.seq, invocationId: e.invocation_id, markerParent: e.marker_parent })));
  const lastSeq = new Map(events.map((e) => [e.invocation_id, e.seq]));
  for (const r of stored)
    if (r.last_seq !== lastSeq.get(r.invocation_id as string)) say(`invocation ${r.invocation_id}: last_seq ${r.last_seq}`);
  const rows = stored.map((r) => ({
    invocationId: r.invocation_id,
    firstSeq: r.first_seq,
    afterInvocationId: r.after_invocation_id,
    depth: r.depth,
    isMarker: Boolean(r.is_marker),
  }));
  if (!deepEqual(rows as never, replay.nodes as never)) say("the invocation tree differs from a replay of the log");
  if (s.tail_seq !== replay.tailSeq) say(`tail_seq ${s.tail_seq}, expected ${replay.tailSeq}`);
}

/** Every attachment's version names a finished blob of its owner, and every finished blob holds its size in chunks 0..n. */
async function checkBlobs(tx: Executor, problems: string[]) {
  const orphans = await tx.all<{ scope: string; filename: string; version: number }>(sql`
    SELECT a.scope, a.filename, a.version FROM artifacts a
    WHERE a.blob_sha256 IS NOT NULL AND NOT EXISTS (SELECT 1 FROM blobs b WHERE b.user_id = a.user_id AND b.sha256 = a.blob_sha256)`);
  for (const o of orphans) problems.push(`artifact ${o.scope}/${o.filename} v${o.version}: its blob is missing`);
  const blobs = await tx.all<{ id: string; size: number; bytes: number | null; chunks: number; last: number | null }>(sql`
    SELECT b.id, b.size, SUM(${tx.dialect.byteLength(sql`c.data`)}) AS bytes, COUNT(c.seq) AS chunks, MAX(c.seq) AS last
    FROM blobs b LEFT JOIN blob_chunks c ON c.blob_id = b.id WHERE b.sha256 IS NOT NULL GROUP BY b.id, b.size`);
  for (const b of blobs) {
    if (Number(b.bytes ?? 0) !== Number(b.size)) problems.push(`blob ${b.id}: ${b.bytes ?? 0} bytes in chunks for size ${b.size}`);
    if (Number(b.chunks) > 0 && Number(b.last) !== Number(b.chunks) - 1) problems.push(`blob ${b.id}: chunks are not 0..n`);
  }
}
