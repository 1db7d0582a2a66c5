/** The data-access module: every SQL statement of the app lives here. */
import { randomUUID } from "node:crypto";
import { and, asc, desc, eq, gte, isNotNull, lt, lte, max, min, sql } from "drizzle-orm";
import type { Task } from "@/lib/a2a/types";
import { isBusy } from "@/lib/agent/busy";
import { InvalidReferenceError, InvocationNotFoundError, NotFoundError, SessionBusyError, ValidationError } from "@/lib/errors";
import { markerParent, rewindTarget, walkRewinds } from "@/lib/session/effective-history";
import { copyTaskJson } from "@/lib/session/fork";
import { autoName, eventText, NEW_CHAT } from "@/lib/session/names";
import { type RewindReason, recordedVersions, rewindArtifactPlan, rewindMarker, rewindStateDelta } from "@/lib/session/rewind";
import { applyDelta, replayState, splitDelta } from "@/lib/session/state";
import type { AdkEvent, ArtifactDelta, State, StateDelta } from "@/lib/session/types";
import { type Db, getDb } from "./client";
import { appState, artifacts, events, sessions, stateCheckpoints, tasks, userState, users } from "./schema";
import type { ArtifactInfo, SessionRecord, SessionSummary } from "./types";

export type { ArtifactInfo, SessionRecord, SessionSummary };

/** A state snapshot every this many events bounds the replay a rewind or fork does. */
const CHECKPOINT_EVERY = 256;

type SessionRow = typeof sessions.$inferSelect;
type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
type Conn = Db | Tx;

const iso = (ms: number) => new Date(ms).toISOString();
const parseJson = <T>(text: string) => JSON.parse(text) as T;

function summary(row: SessionRow): SessionSummary {
  return {
    id: row.id,
    user_id: row.userId,
    agent: row.agent,
    name: row.name,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
    forked_from_session_id: row.forkedFromSessionId,
    forked_before_invocation_id: row.forkedBeforeInvocationId,
  };
}

// ---------------------------------------------------------------- users

export function createUser(): string {
  const id = randomUUID();
  getDb().insert(users).values({ id, createdAt: Date.now() }).run();
  return id;
}

function ensureUser(conn: Conn, userId: string) {
  conn.insert(users).values({ id: userId, createdAt: Date.now() }).onConflictDoNothing().run();
}

// ---------------------------------------------------------------- sessions

function requireSession(conn: Conn, userId: string, sessionId: string): SessionRow {
  const row = conn
    .select()
    .from(sessions)
    .where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId)))
    .get();
  if (!row) throw new NotFoundError("Session not found");
  return row;
}

function scopedState(conn: Conn, userId: string, agent: string): State {
  const state: State = {};
  for (const r of conn.select().from(appState).where(eq(appState.agent, agent)).all()) state[r.key] = parseJson(r.value);
  const userRows = conn
    .select()
    .from(userState)
    .where(and(eq(userState.userId, userId), eq(userState.agent, agent)))
    .all();
  for (const r of userRows) state[r.key] = parseJson(r.value);
  return state;
}

function applyScopedDelta(conn: Conn, userId: string, agent: string, delta: StateDelta, scope: "app" | "user") {
  for (const [key, value] of Object.entries(delta)) {
    if (scope === "app") {
      const where = and(eq(appState.agent, agent), eq(appState.key, key));
      if (value === null) conn.delete(appState).where(where).run();
      else
        conn
          .insert(appState)
          .values({ agent, key, value: JSON.stringify(value) })
          .onConflictDoUpdate({ target: [appState.agent, appState.key], set: { value: JSON.stringify(value) } })
          .run();
    } else {
      const where = and(eq(userState.userId, userId), eq(userState.agent, agent), eq(userState.key, key));
      if (value === null) conn.delete(userState).where(where).run();
      else
        conn
          .insert(userState)
          .values({ userId, agent, key, value: JSON.stringify(value) })
          .onConflictDoUpdate({
            target: [userState.userId, userState.agent, userState.key],
            set: { value: JSON.stringify(value) },
          })
          .run();
    }
  }
}

function record(conn: Conn, row: SessionRow): SessionRecord {
  const source = row.forkedFromSessionId
    ? conn
        .select({ name: sessions.name })
        .from(sessions)
        .where(and(eq(sessions.id, row.forkedFromSessionId), eq(sessions.userId, row.userId)))
        .get()
    : undefined;
  const forks = conn
    .select({ id: sessions.id, name: sessions.name, forkedBefore: sessions.forkedBeforeInvocationId })
    .from(sessions)
    .where(and(eq(sessions.forkedFromSessionId, row.id), eq(sessions.userId, row.userId)))
    .orderBy(asc(sessions.createdAt))
    .all();
  return {
    ...summary(row),
    state: { ...parseJson<State>(row.state), ...scopedState(conn, row.userId, row.agent) },
    forked_from_name: source?.name ?? null,
    forks: forks.map((f) => ({ id: f.id, name: f.name, forked_before_invocation_id: f.forkedBefore })),
  };
}

export function createSession(userId: string, input: { agent?: string; name?: string; state?: State } = {}): SessionRecord {
  const db = getDb();
  return db.transaction(
    (tx) => {
      ensureUser(tx, userId);
      const agent = input.agent ?? "demo";
      const parts = splitDelta(input.state);
      const state = JSON.stringify(applyDelta({}, parts.session));
      const now = Date.now();
      const row = tx
        .insert(sessions)
        .values({
          id: randomUUID(),
          userId,
          agent,
          name: input.name?.trim() || NEW_CHAT,
          namedByUser: Boolean(input.name?.trim()),
          state,
          initialState: state,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
        .get();
      applyScopedDelta(tx, userId, agent, parts.app, "app");
      applyScopedDelta(tx, userId, agent, parts.user, "user");
      return record(tx, row);
    },
    { behavior: "immediate" },
  );
}

export function listSessions(userId: string): SessionSummary[] {
  return getDb()
    .select()
    .from(sessions)
    .where(eq(sessions.userId, userId))
    .orderBy(desc(sessions.updatedAt), desc(sessions.createdAt))
    .all()
    .map(summary);
}

export function getSession(userId: string, sessionId: string): SessionRecord {
  const db = getDb();
  return record(db, requireSession(db, userId, sessionId));
}

export function renameSession(userId: string, sessionId: string, name: string): SessionRecord {
  const db = getDb();
  // Immediate, like every write: a read that later upgrades to a write can fail under WAL contention.
  return db.transaction(
    (tx) => {
      requireSession(tx, userId, sessionId);
      const row = tx.update(sessions).set({ name: name.trim(), namedByUser: true }).where(eq(sessions.id, sessionId)).returning().get();
      return record(tx, row);
    },
    { behavior: "immediate" },
  );
}

/** An automatically named chat takes its name from its first visible user message (or "New chat" when none is left). */
function refreshAutoName(conn: Conn, sessionId: string) {
  const row = conn.select().from(sessions).where(eq(sessions.id, sessionId)).get();
  if (!row || row.namedByUser) return;
  let name = NEW_CHAT;
  for (const [from, to] of effectiveLayout(conn, row).segments) {
    const first = conn
      .select({ data: events.data })
      .from(events)
      .where(and(eq(events.sessionId, row.id), eq(events.author, "user"), gte(events.seq, from), lte(events.seq, to)))
      .orderBy(asc(events.seq))
      .limit(1)
      .get();
    const text = first ? eventText(parseJson<AdkEvent>(first.data)) : "";
    if (text) {
      name = autoName(text);
      break;
    }
  }
  if (name !== row.name) conn.update(sessions).set({ name }).where(eq(sessions.id, row.id)).run();
}

export function deleteSession(userId: string, sessionId: string): void {
  const result = getDb()
    .delete(sessions)
    .where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId)))
    .run();
  if (result.changes === 0) throw new NotFoundError("Session not found");
}

// ---------------------------------------------------------------- events

function userArtifactScope(userId: string, agent: string) {
  return `user/${userId}/${agent}`;
}

function artifactScope(row: SessionRow, filename: string) {
  return filename.startsWith("user:") ? userArtifactScope(row.userId, row.agent) : row.id;
}

function firstSeqOf(conn: Conn, sessionId: string, invocationId: string): number | null {
  const found = conn
    .select({ seq: min(events.seq) })
    .from(events)
    .where(and(eq(events.sessionId, sessionId), eq(events.invocationId, invocationId)))
    .get();
  return found?.seq ?? null;
}

/**
 * Appends events in order inside the caller's transaction: assigns sequence numbers, applies
 * state deltas per scope (temp: keys are dropped), checks artifact references, links markers.
 */
function appendEventsTx(tx: Tx, row: SessionRow, input: AdkEvent[]): AdkEvent[] {
  const state = parseJson<State>(row.state);
  let seq = row.lastSeq;
  const stored: AdkEvent[] = [];
  for (const original of input) {
    seq += 1;
    const parts = splitDelta(original.actions?.state_delta);
    const artifactDelta: ArtifactDelta = original.actions?.artifact_delta ?? {};
    for (const [filename, version] of Object.entries(artifactDelta)) {
      const exists = tx
        .select({ v: artifacts.version })
        .from(artifacts)
        .where(and(eq(artifacts.scope, artifactScope(row, filename)), eq(artifacts.filename, filename), eq(artifacts.version, version)))
        .get();
      if (!exists) throw new InvalidReferenceError(`Artifact ${filename} has no version ${version}`);
    }
    const event: AdkEvent = {
      ...original,
      actions: { ...original.actions, state_delta: { ...parts.session, ...parts.app, ...parts.user } },
    };
    applyDelta(state, parts.session);
    applyScopedDelta(tx, row.userId, row.agent, parts.app, "app");
    applyScopedDelta(tx, row.userId, row.agent, parts.user, "user");
    const target = rewindTarget(event);
    tx.insert(events)
      .values({
        sessionId: row.id,
        seq,
        id: event.id,
        invocationId: event.invocation_id,
        author: event.author,
        timestamp: event.timestamp,
        data: JSON.stringify(event),
        stateDelta: Object.keys(parts.session).length ? JSON.stringify(parts.session) : null,
        artifactDelta: Object.keys(artifactDelta).length ? JSON.stringify(artifactDelta) : null,
        markerParent: target ? markerParent(seq, firstSeqOf(tx, row.id, target)) : null,
      })
      .run();
    if (seq % CHECKPOINT_EVERY === 0) {
      tx.insert(stateCheckpoints)
        .values({ sessionId: row.id, seq, state: JSON.stringify(state) })
        .run();
    }
    stored.push(event);
  }
  tx.update(sessions)
    .set({ state: JSON.stringify(state), lastSeq: seq, updatedAt: Date.now() })
    .where(eq(sessions.id, row.id))
    .run();
  return stored;
}

export function appendEvents(userId: string, sessionId: string, input: AdkEvent[]): AdkEvent[] {
  const db = getDb();
  return db.transaction(
    (tx) => {
      const row = requireSession(tx, userId, sessionId);
      const stored = appendEventsTx(tx, row, input);
      if (!row.namedByUser && row.name === NEW_CHAT) refreshAutoName(tx, row.id);
      return stored;
    },
    { behavior: "immediate" },
  );
}

function effectiveLayout(conn: Conn, row: SessionRow) {
  const markers = conn
    .select({ seq: events.seq, parent: events.markerParent, invocationId: events.invocationId })
    .from(events)
    .where(and(eq(events.sessionId, row.id), isNotNull(events.markerParent)))
    .all();
  return walkRewinds(
    row.lastSeq,
    markers.map((m) => ({ seq: m.seq, parent: m.parent!, invocationId: m.invocationId })),
  );
}

export function listEvents(userId: string, sessionId: string, view: "all" | "effective" = "all"): AdkEvent[] {
  const db = getDb();
  return db.transaction((tx) => {
    const row = requireSession(tx, userId, sessionId);
    const ranges = view === "all" ? [[1, row.lastSeq] as const] : effectiveLayout(tx, row).segments;
    return ranges.flatMap(([from, to]) =>
      tx
        .select({ data: events.data })
        .from(events)
        .where(and(eq(events.sessionId, row.id), gte(events.seq, from), lte(events.seq, to)))
        .orderBy(asc(events.seq))
        .all()
        .map((r) => parseJson<AdkEvent>(r.data)),
    );
  });
}

/** Session-scoped state just before `boundary`: the last checkpoint, then the deltas after it. */
function stateBefore(conn: Conn, row: SessionRow, boundary: number): State {
  const checkpoint = conn
    .select()
    .from(stateCheckpoints)
    .where(and(eq(stateCheckpoints.sessionId, row.id), lt(stateCheckpoints.seq, boundary)))
    .orderBy(desc(stateCheckpoints.seq))
    .limit(1)
    .get();
  const deltas = conn
    .select({ delta: events.stateDelta })
    .from(events)
    .where(
      and(
        eq(events.sessionId, row.id),
        sql`${events.seq} > ${checkpoint?.seq ?? 0}`,
        lt(events.seq, boundary),
        isNotNull(events.stateDelta),
      ),
    )
    .orderBy(asc(events.seq))
    .all();
  return replayState(
    parseJson<State>(checkpoint?.state ?? row.initialState),
    deltas.map((d) => parseJson<StateDelta>(d.delta!)),
  );
}

/** Recorded artifact versions (session files) before `boundary` and overall. */
function recordedArtifacts(conn: Conn, row: SessionRow, boundary: number) {
  const rows = conn
    .select({ seq: events.seq, delta: events.artifactDelta })
    .from(events)
    .where(and(eq(events.sessionId, row.id), isNotNull(events.artifactDelta)))
    .orderBy(asc(events.seq))
    .all()
    .map((r) => ({ seq: r.seq, delta: parseJson<ArtifactDelta>(r.delta!) }));
  return {
    before: recordedVersions(rows.filter((r) => r.seq < boundary).map((r) => r.delta)),
    current: recordedVersions(rows.map((r) => r.delta)),
  };
}

function requireBoundary(conn: Conn, row: SessionRow, invocationId: string): number {
  const boundary = firstSeqOf(conn, row.id, invocationId);
  if (boundary === null) throw new InvocationNotFoundError(invocationId);
  return boundary;
}

function refuseIfBusy(sessionId: string) {
  if (isBusy(sessionId)) throw new SessionBusyError();
}

// ---------------------------------------------------------------- rewind and fork

/** SPEC §2.1: restores session state and files to just before `invocationId`, in one transaction. */
export function rewindSession(userId: string, sessionId: string, invocationId: string, reason: RewindReason = "rewind") {
  refuseIfBusy(sessionId);
  const db = getDb();
  return db.transaction(
    (tx) => {
      const row = requireSession(tx, userId, sessionId);
      const boundary = requireBoundary(tx, row, invocationId);
      const stateDelta = rewindStateDelta(parseJson<State>(row.state), stateBefore(tx, row, boundary));
      const recorded = recordedArtifacts(tx, row, boundary);
      const artifactDelta: ArtifactDelta = {};
      for (const { filename, restore } of rewindArtifactPlan(recorded.current, recorded.before)) {
        artifactDelta[filename] = restoreArtifact(tx, row, filename, restore);
      }
      const [event] = appendEventsTx(tx, row, [rewindMarker(invocationId, stateDelta, artifactDelta, reason)]);
      refreshAutoName(tx, row.id);
      return { event, session: record(tx, requireSession(tx, userId, sessionId)) };
    },
    { behavior: "immediate" },
  );
}

/** Appends a copy of version `restore` (or a tombstone) as the file's next version. */
function restoreArtifact(tx: Tx, row: SessionRow, filename: string, restore: number | null): number {
  const version = nextArtifactVersion(tx, row.id, filename);
  const source =
    restore === null
      ? undefined
      : tx
          .select()
          .from(artifacts)
          .where(and(eq(artifacts.scope, row.id), eq(artifacts.filename, filename), eq(artifacts.version, restore)))
          .get();
  tx.insert(artifacts)
    .values({
      scope: row.id,
      filename,
      version,
      sessionId: row.id,
      userId: row.userId,
      mimeType: source?.mimeType ?? "application/octet-stream",
      size: source?.size ?? 0,
      data: source?.data ?? Buffer.alloc(0),
      tombstone: source ? source.tombstone : true,
      restoredFrom: source ? (source.restoredFrom ?? source.version) : null,
      createdAt: Date.now(),
    })
    .run();
  return version;
}

/** SPEC §2.3: a new session from the source as it was before `invocationId` (or all of it). */
export function forkSession(userId: string, sessionId: string, input: { invocationId?: string; name?: string } = {}) {
  refuseIfBusy(sessionId);
  const db = getDb();
  return db.transaction(
    (tx) => {
      const source = requireSession(tx, userId, sessionId);
      const boundary = input.invocationId ? requireBoundary(tx, source, input.invocationId) : source.lastSeq + 1;
      const state = input.invocationId ? stateBefore(tx, source, boundary) : parseJson<State>(source.state);
      const now = Date.now();
      const fork = tx
        .insert(sessions)
        .values({
          id: randomUUID(),
          userId,
          agent: source.agent,
          name: input.name?.trim() || `Fork of ${source.name}`,
          namedByUser: true,
          state: JSON.stringify(state),
          initialState: source.initialState,
          lastSeq: boundary - 1,
          forkedFromSessionId: source.id,
          forkedBeforeInvocationId: input.invocationId ?? null,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
        .get();
      copyEvents(tx, source.id, fork.id, boundary);
      copyArtifacts(tx, source, fork.id, input.invocationId ? recordedArtifacts(tx, source, boundary).before : null);
      copyTasks(db.$client, source.id, fork.id, boundary);
      return record(tx, fork);
    },
    { behavior: "immediate" },
  );
}

/** Raw copy in order, with new event ids (same in the column and the JSON) and the same seqs. */
function copyEvents(tx: Tx, from: string, to: string, boundary: number) {
  tx.run(sql`
    INSERT INTO events (session_id, seq, id, invocation_id, author, timestamp, data, state_delta, artifact_delta, marker_parent)
    WITH src AS MATERIALIZED (
      SELECT seq, uuid() AS new_id, invocation_id, author, timestamp, data, state_delta, artifact_delta, marker_parent
      FROM events WHERE session_id = ${from} AND seq < ${boundary}
    )
    SELECT ${to}, seq, new_id, invocation_id, author, timestamp, json_set(data, '$.id', new_id),
           state_delta, artifact_delta, marker_parent
    FROM src ORDER BY seq`);
  tx.run(sql`
    INSERT INTO state_checkpoints (session_id, seq, state)
    SELECT ${to}, seq, state FROM state_checkpoints WHERE session_id = ${from} AND seq < ${boundary}`);
}

/** Versions 0..v of each session file, v its recorded version at the boundary (null: every version). */
function copyArtifacts(tx: Tx, source: SessionRow, to: string, versions: Record<string, number> | null) {
  const copy = (filename: string | null, upTo: number | null) =>
    tx.run(sql`
      INSERT INTO artifacts (scope, filename, version, session_id, user_id, mime_type, size, data, tombstone, restored_from, created_at)
      SELECT ${to}, filename, version, ${to}, user_id, mime_type, size, data, tombstone, restored_from, created_at
      FROM artifacts
      WHERE scope = ${source.id}
        AND (${filename} IS NULL OR filename = ${filename})
        AND (${upTo} IS NULL OR version <= ${upTo})`);
  if (versions === null) copy(null, null);
  else
    for (const [filename, version] of Object.entries(versions)) {
      if (!filename.startsWith("user:")) copy(filename, version);
    }
}

/** One prepared statement for every copied task: per-row query building would dominate a long fork. */
function copyTasks(client: Db["$client"], from: string, to: string, boundary: number) {
  const rows = client
    .prepare("SELECT id, invocation_id, position, data, created_at FROM tasks WHERE session_id = ? AND position < ? ORDER BY position")
    .all(from, boundary) as { id: string; invocation_id: string; position: number; data: string; created_at: number }[];
  const insert = client.prepare(
    "INSERT INTO tasks (id, session_id, invocation_id, position, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const now = Date.now();
  for (const r of rows) {
    const copy = copyTaskJson(r.data, { taskId: r.id, from, to });
    insert.run(copy.id, to, r.invocation_id, r.position, copy.json, r.created_at, now);
  }
}

// ---------------------------------------------------------------- tasks

export function saveTask(userId: string, sessionId: string, task: Task): void {
  const invocationId = task.metadata?.kagent_invocation_id;
  if (typeof invocationId !== "string") throw new ValidationError("Task metadata needs kagent_invocation_id");
  const db = getDb();
  db.transaction(
    (tx) => {
      const row = requireSession(tx, userId, sessionId);
      const position = firstSeqOf(tx, row.id, invocationId) ?? row.lastSeq + 1;
      const now = Date.now();
      const data = JSON.stringify({ ...task, contextId: row.id });
      tx.insert(tasks)
        .values({ id: task.id, sessionId: row.id, invocationId, position, data, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({ target: tasks.id, set: { data, position, updatedAt: now } })
        .run();
    },
    { behavior: "immediate" },
  );
}

export function getTask(userId: string, taskId: string): Task {
  const row = getDb()
    .select({ data: tasks.data })
    .from(tasks)
    .innerJoin(sessions, eq(sessions.id, tasks.sessionId))
    .where(and(eq(tasks.id, taskId), eq(sessions.userId, userId)))
    .get();
  if (!row) throw new NotFoundError("Task not found");
  return parseJson<Task>(row.data);
}

/** The session's tasks in order: the effective ones, or all with hidden ones flagged `rewound`. */
export function listTasks(userId: string, sessionId: string, opts: { includeRewound?: boolean } = {}): Task[] {
  const db = getDb();
  return db.transaction((tx) => {
    const row = requireSession(tx, userId, sessionId);
    const layout = effectiveLayout(tx, row);
    const taskRows = (from: number, to: number) =>
      tx
        .select({ data: tasks.data, position: tasks.position })
        .from(tasks)
        .where(and(eq(tasks.sessionId, row.id), gte(tasks.position, from), lte(tasks.position, to)))
        .orderBy(asc(tasks.position))
        .all();
    if (!opts.includeRewound) {
      return layout.segments.flatMap(([from, to]) => taskRows(from, to).map((r) => parseJson<Task>(r.data)));
    }
    // Tasks of a running invocation can sit past lastSeq until their events land.
    const all = taskRows(1, Number.MAX_SAFE_INTEGER);
    const markers = new Map(
      tx
        .select({ seq: events.seq, data: events.data })
        .from(events)
        .where(and(eq(events.sessionId, row.id), isNotNull(events.markerParent)))
        .all()
        .map((m) => [m.seq, parseJson<AdkEvent>(m.data)]),
    );
    return all.map((r) => {
      const task = parseJson<Task>(r.data);
      const hiddenBy = layout.rewound.find((range) => r.position >= range.from && r.position <= range.to);
      if (!hiddenBy) return task;
      const marker = markers.get(hiddenBy.markerSeq);
      const rewoundBy = {
        rewound: true,
        rewound_by: hiddenBy.markerInvocationId,
        rewound_at: marker ? new Date(marker.timestamp * 1000).toISOString() : null,
        rewound_reason: (marker?.custom_metadata as { retrace_reason?: string } | undefined)?.retrace_reason ?? "rewind",
      };
      return { ...task, metadata: { ...task.metadata, ...rewoundBy } };
    });
  });
}

// ---------------------------------------------------------------- artifacts

/** Control, bidi-override and path characters would make a name misleading or unsafe to serve. */
const UNSAFE_IN_FILENAME = /[/\\\p{Cc}\p{Bidi_Control}]/u;

function validateFilename(filename: string) {
  const bare = filename.replace(/^user:/, "");
  if (UNSAFE_IN_FILENAME.test(filename) || filename.length > 255 || bare === "." || bare === ".." || bare.trim() === "") {
    throw new ValidationError(`Invalid artifact filename: ${JSON.stringify(filename)}`);
  }
}

function nextArtifactVersion(conn: Conn, scope: string, filename: string): number {
  const found = conn
    .select({ v: max(artifacts.version) })
    .from(artifacts)
    .where(and(eq(artifacts.scope, scope), eq(artifacts.filename, filename)))
    .get();
  return found?.v == null ? 0 : found.v + 1;
}

export function saveArtifact(
  userId: string,
  sessionId: string,
  input: { filename: string; mimeType: string; data: Buffer },
): { filename: string; version: number } {
  validateFilename(input.filename);
  const db = getDb();
  return db.transaction(
    (tx) => {
      const row = requireSession(tx, userId, sessionId);
      const scope = artifactScope(row, input.filename);
      const version = nextArtifactVersion(tx, scope, input.filename);
      tx.insert(artifacts)
        .values({
          scope,
          filename: input.filename,
          version,
          sessionId: scope === row.id ? row.id : null,
          userId: row.userId,
          mimeType: input.mimeType,
          size: input.data.length,
          data: input.data,
          createdAt: Date.now(),
        })
        .run();
      return { filename: input.filename, version };
    },
    { behavior: "immediate" },
  );
}

/** Current files of the session (and the user's `user:` files), tombstoned ones left out. */
export function listArtifacts(userId: string, sessionId: string): ArtifactInfo[] {
  const db = getDb();
  const row = requireSession(db, userId, sessionId);
  const rows = db.all<{
    filename: string;
    version: number;
    mime_type: string;
    size: number;
    tombstone: number;
    restored_from: number | null;
  }>(sql`
    SELECT a.filename, a.version, a.mime_type, a.size, a.tombstone, a.restored_from FROM artifacts a
    WHERE a.scope IN (${row.id}, ${userArtifactScope(row.userId, row.agent)})
      AND a.version = (SELECT MAX(b.version) FROM artifacts b WHERE b.scope = a.scope AND b.filename = a.filename)
    ORDER BY a.filename`);
  return rows
    .filter((r) => !r.tombstone)
    .map((r) => ({ filename: r.filename, version: r.version, mime_type: r.mime_type, size: r.size, restored_from: r.restored_from }));
}

export function loadArtifact(userId: string, sessionId: string, filename: string, version?: number) {
  const db = getDb();
  const row = requireSession(db, userId, sessionId);
  const scope = artifactScope(row, filename);
  const where = and(eq(artifacts.scope, scope), eq(artifacts.filename, filename));
  const found = db
    .select()
    .from(artifacts)
    .where(version === undefined ? where : and(where, eq(artifacts.version, version)))
    .orderBy(desc(artifacts.version))
    .limit(1)
    .get();
  if (!found || found.tombstone) throw new NotFoundError(`Artifact not found: ${filename}`);
  return { filename, version: found.version, mime_type: found.mimeType, data: found.data };
}
