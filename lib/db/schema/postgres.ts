/** The PostgreSQL schema: the same tables and columns as lib/db/schema/sqlite.ts, in PostgreSQL's types. */
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  customType,
  doublePrecision,
  foreignKey,
  index,
  integer,
  pgSequence,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";

const bytea = customType<{ data: Buffer }>({ dataType: () => "bytea" });
const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });
const millis = <Name extends string>(name: Name) => bigint(name, { mode: "number" });
const createdAt = () => millis("created_at").notNull();

export const users = pgTable("users", {
  id: text("id").primaryKey(),
  createdAt: createdAt(),
  activity: millis("activity").notNull().default(0),
  storedBytes: millis("stored_bytes").notNull().default(0),
  tokensDay: integer("tokens_day").notNull().default(0),
  tokensUsed: millis("tokens_used").notNull().default(0),
});

export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    agent: text("agent").notNull(),
    name: text("name").notNull(),
    namedByUser: boolean("named_by_user").notNull().default(false),
    state: text("state").notNull().default("{}"),
    initialState: text("initial_state").notNull().default("{}"),
    lastSeq: integer("last_seq").notNull().default(0),
    tailSeq: integer("tail_seq").notNull().default(0),
    forkedFromSessionId: text("forked_from_session_id"),
    forkedBeforeInvocationId: text("forked_before_invocation_id"),
    inherited: text("inherited"),
    sharedUntil: integer("shared_until").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: millis("updated_at").notNull(),
    activity: millis("activity").notNull().default(0),
    storedBytes: millis("stored_bytes").notNull().default(0),
    turnTaskId: text("turn_task_id"),
    turnOwner: text("turn_owner"),
    turnLeaseUntil: millis("turn_lease_until"),
    turnCancel: boolean("turn_cancel").notNull().default(false),
    treeBuilt: boolean("tree_built").notNull().default(true),
    deletedAt: millis("deleted_at"),
    importLeaseUntil: millis("import_lease_until"),
    searchIndexed: boolean("search_indexed").notNull().default(true),
  },
  (t) => [
    index("sessions_user_activity").on(t.userId, t.activity),
    index("sessions_forked_from").on(t.forkedFromSessionId),
    index("sessions_turn_lease").on(t.turnLeaseUntil).where(sql`turn_task_id IS NOT NULL`),
    index("sessions_import_lease").on(t.importLeaseUntil).where(sql`import_lease_until IS NOT NULL`),
  ],
);

export const events = pgTable(
  "events",
  {
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    id: text("id").notNull(),
    invocationId: text("invocation_id").notNull(),
    author: text("author").notNull(),
    timestamp: doublePrecision("timestamp").notNull(),
    data: text("data").notNull(),
    stateDelta: text("state_delta"),
    artifactDelta: text("artifact_delta"),
    markerParent: integer("marker_parent"),
    /** Newer events have higher positions (`search_positions`): search lists the newest first (lib/db/tx/search-index.ts). */
    searchPos: millis("search_pos"),
    /** For events with text: the key of the user who wrote it, also the first word of `search_doc`. */
    searchOwner: text("search_owner"),
    /** Its words as given (`array_to_tsvector`: PostgreSQL's parser and dictionaries play no part). */
    searchDoc: tsvector("search_doc"),
  },
  (t) => [
    primaryKey({ columns: [t.sessionId, t.seq] }),
    // A user's words: looked up in the inverted index, or, when they are in most of the user's messages, read
    // newest first from the user's own rows; PostgreSQL's planner picks per query (lib/db/search.ts).
    index("events_search").using("gin", t.searchDoc).where(sql`search_doc IS NOT NULL`),
    index("events_search_owner").on(t.searchOwner, t.searchPos).where(sql`search_owner IS NOT NULL`),
    // Covering, so a session's markers are read from this small index alone.
    index("events_markers").on(t.sessionId, t.seq, t.markerParent, t.invocationId).where(sql`marker_parent IS NOT NULL`),
    index("events_artifact_deltas").on(t.sessionId, t.seq).where(sql`artifact_delta IS NOT NULL`),
  ],
);

export const invocations = pgTable(
  "invocations",
  {
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    invocationId: text("invocation_id").notNull(),
    firstSeq: integer("first_seq").notNull(),
    lastSeq: integer("last_seq").notNull(),
    afterInvocationId: text("after_invocation_id"),
    depth: integer("depth").notNull(),
    isMarker: boolean("is_marker").notNull(),
    taskId: text("task_id"),
    messageId: text("message_id"),
    task: text("task"),
  },
  (t) => [
    primaryKey({ columns: [t.sessionId, t.invocationId] }),
    index("invocations_session_first_seq").on(t.sessionId, t.firstSeq),
    index("invocations_session_after").on(t.sessionId, t.afterInvocationId),
    // A chat's heads (History) and marker links are read from this small index, not by filtering every turn.
    index("invocations_session_markers").on(t.sessionId, t.firstSeq).where(sql`is_marker`),
    // Partial: most invocations (markers, forks' copies) have neither, and a fork copies them all.
    uniqueIndex("invocations_task").on(t.taskId).where(sql`task_id IS NOT NULL`),
    uniqueIndex("invocations_session_message").on(t.sessionId, t.messageId).where(sql`message_id IS NOT NULL`),
    // Turns waiting for a decision, which a fork copies (lib/db/tx/fork.ts); queries say it as `waitingTask` does.
    index("invocations_waiting").on(t.sessionId, t.firstSeq).where(sql`(CAST(task AS jsonb) #>> '{status,state}') = 'input-required'`),
  ],
);

export const versionLabels = pgTable(
  "version_labels",
  {
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    invocationId: text("invocation_id").notNull(),
    label: text("label"),
    pinned: boolean("pinned").notNull().default(false),
    updatedAt: millis("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.invocationId] })],
);

export const stateCheckpoints = pgTable(
  "state_checkpoints",
  {
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    state: text("state").notNull(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.seq] })],
);

export const searchPositions = pgSequence("search_positions");

/**
 * Keys the search index holds a user's rows under besides their own: those of the guests merged into the
 * account, since index rows keep their writer's key (lib/db/tx/search-index.ts).
 */
export const searchKeys = pgTable(
  "search_keys",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.key] })],
);

/**
 * What a message's search snippets are cut from (lib/db/tx/search-index.ts): its indexed text as a line, in parts
 * of 1,000 characters, so a search reads the part around a match, never the event (lib/db/tx/search-snippets.ts).
 */
export const searchTexts = pgTable(
  "search_texts",
  {
    sessionId: text("session_id").notNull(),
    seq: integer("seq").notNull(),
    part: integer("part").notNull(),
    text: text("text").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.sessionId, t.seq, t.part] }),
    foreignKey({ columns: [t.sessionId, t.seq], foreignColumns: [events.sessionId, events.seq] }).onDelete("cascade"),
  ],
);

/** Where each word of a text of several parts first comes, kept under the word's first two characters (its initials) (lib/session/search-text.ts). */
export const searchMarks = pgTable(
  "search_marks",
  {
    sessionId: text("session_id").notNull(),
    seq: integer("seq").notNull(),
    initials: text("initials").notNull(),
    marks: text("marks").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.sessionId, t.seq, t.initials] }),
    foreignKey({ columns: [t.sessionId, t.seq], foreignColumns: [events.sessionId, events.seq] }).onDelete("cascade"),
  ],
);

export const appState = pgTable(
  "app_state",
  { agent: text("agent").notNull(), key: text("key").notNull(), value: text("value").notNull() },
  (t) => [primaryKey({ columns: [t.agent, t.key] })],
);

export const userState = pgTable(
  "user_state",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    agent: text("agent").notNull(),
    key: text("key").notNull(),
    value: text("value").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.agent, t.key] })],
);

export const artifacts = pgTable(
  "artifacts",
  {
    scope: text("scope").notNull(),
    filename: text("filename").notNull(),
    version: integer("version").notNull(),
    sessionId: text("session_id").references(() => sessions.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    mimeType: text("mime_type").notNull(),
    size: integer("size").notNull(),
    data: bytea("data").notNull(),
    tombstone: boolean("tombstone").notNull().default(false),
    restoredFrom: integer("restored_from"),
    createdAt: createdAt(),
    blobSha256: text("blob_sha256"),
  },
  (t) => [
    primaryKey({ columns: [t.scope, t.filename, t.version] }),
    index("artifacts_session").on(t.sessionId),
    index("artifacts_blob").on(t.userId, t.blobSha256).where(sql`blob_sha256 IS NOT NULL`),
  ],
);

/** lib/db/schema/sqlite.ts says what each column means. */
export const shareLinks = pgTable(
  "share_links",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    name: text("name").notNull().default(""),
    upToSeq: integer("up_to_seq").notNull(),
    includeTools: boolean("include_tools").notNull().default(false),
    includeFiles: boolean("include_files").notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("share_links_token").on(t.tokenHash), index("share_links_session").on(t.sessionId)],
);

/** The built-in MCP todo server's world (lib/agent/mcp/todo-server.ts): per user, outside every chat, so no rewind touches it. */
export const todos = pgTable(
  "todos",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    id: text("id").notNull(),
    text: text("text").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.id] })],
);
