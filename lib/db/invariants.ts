/** Checks a database against what the store promises; used by the reliability tests and scripts/check-db.ts. */
import type Database from "better-sqlite3";
import { markerParent, rewindTarget } from "@/lib/session/effective-history";
import { deepEqual, replayState, splitDelta } from "@/lib/session/state";
import type { AdkEvent, State, StateDelta } from "@/lib/session/types";

interface SessionRow {
  id: string;
  state: string;
  initial_state: string;
  last_seq: number;
}
interface EventRow {
  seq: number;
  id: string;
  invocation_id: string;
  data: string;
  state_delta: string | null;
  marker_parent: number | null;
}

/** Every broken promise found, as readable lines; empty means consistent. */
export function checkInvariants(db: Database.Database): string[] {
  const problems: string[] = [];
  const read = db.transaction(() => {
    const integrity = db.pragma("integrity_check", { simple: true });
    if (integrity !== "ok") problems.push(`integrity_check: ${integrity}`);
    const sessions = db.prepare("SELECT id, state, initial_state, last_seq FROM sessions").all() as SessionRow[];
    for (const s of sessions) checkSession(db, s, problems);
    const gaps = db
      .prepare(`SELECT scope, filename FROM artifacts GROUP BY scope, filename HAVING MIN(version) != 0 OR MAX(version) != COUNT(*) - 1`)
      .all() as { scope: string; filename: string }[];
    for (const g of gaps) problems.push(`artifact ${g.scope}/${g.filename}: versions are not 0..n`);
  });
  read();
  return problems;
}

function checkSession(db: Database.Database, s: SessionRow, problems: string[]) {
  const say = (what: string) => problems.push(`session ${s.id}: ${what}`);
  const events = db
    .prepare("SELECT seq, id, invocation_id, data, state_delta, marker_parent FROM events WHERE session_id = ? ORDER BY seq")
    .all(s.id) as EventRow[];
  const checkpoints = new Map(
    (db.prepare("SELECT seq, state FROM state_checkpoints WHERE session_id = ?").all(s.id) as { seq: number; state: string }[]).map((c) => [
      c.seq,
      c.state,
    ]),
  );
  const firstSeq = new Map<string, number>();
  const ids = new Set<string>();
  const deltas: StateDelta[] = [];
  events.forEach((row, i) => {
    if (row.seq !== i + 1) say(`seq ${row.seq} where ${i + 1} was expected`);
    if (ids.has(row.id)) say(`event id ${row.id} appears twice`);
    ids.add(row.id);
    const event = JSON.parse(row.data) as AdkEvent;
    if (event.id !== row.id || event.invocation_id !== row.invocation_id) say(`event ${row.seq}: columns disagree with its JSON`);
    const session = splitDelta(event.actions?.state_delta).session;
    const column = row.state_delta ? JSON.parse(row.state_delta) : {};
    if (!deepEqual(session, column)) say(`event ${row.seq}: state_delta column disagrees with its JSON`);
    deltas.push(session);
    const target = rewindTarget(event);
    const expected = target ? markerParent(row.seq, firstSeq.get(target) ?? null) : null;
    if (row.marker_parent !== expected) say(`event ${row.seq}: marker_parent ${row.marker_parent}, expected ${expected}`);
    if (!firstSeq.has(row.invocation_id)) firstSeq.set(row.invocation_id, row.seq);
    const checkpoint = checkpoints.get(row.seq);
    if (checkpoint && !deepEqual(JSON.parse(checkpoint), replayState(JSON.parse(s.initial_state) as State, deltas))) {
      say(`checkpoint at ${row.seq} differs from a replay`);
    }
  });
  if (s.last_seq !== events.length) say(`last_seq ${s.last_seq} but ${events.length} events`);
  if (!deepEqual(JSON.parse(s.state), replayState(JSON.parse(s.initial_state) as State, deltas))) say("state differs from a fresh replay");
  const orphans = db
    .prepare(
      "SELECT COUNT(*) AS n FROM tasks t WHERE t.session_id = ? AND NOT EXISTS (SELECT 1 FROM events e WHERE e.session_id = t.session_id AND e.invocation_id = t.invocation_id)",
    )
    .get(s.id) as { n: number };
  if (orphans.n) say(`${orphans.n} task(s) without events`);
}
