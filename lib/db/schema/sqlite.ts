/** The embedded SQLite schema; lib/db/schema/postgres.ts is the same tables for PostgreSQL (docs/semantics.md). */
import { sql } from "drizzle-orm";
import { blob, foreignKey, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

const createdAt = () => integer("created_at").notNull();

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  createdAt: createdAt(),
  /** Bumped by every write to one of the user's chats: orders the chat list with no ties. */
  activity: integer("activity").notNull().default(0),
  /** Event and file bytes the user stores, for the per-user quota. */
  storedBytes: integer("stored_bytes").notNull().default(0),
  tokensDay: integer("tokens_day").notNull().default(0), // the UTC day tokens_used counts (lib/db/tx/tokens.ts)
  tokensUsed: integer("tokens_used").notNull().default(0),
});

export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    agent: text("agent").notNull(),
    name: text("name").notNull(),
    /** False while the name is the automatic one (from the first visible user message). */
    namedByUser: integer("named_by_user", { mode: "boolean" }).notNull().default(false),
    /** Session-scoped keys only; app:/user: keys live in their own tables. */
    state: text("state").notNull().default("{}"),
    initialState: text("initial_state").notNull().default("{}"),
    lastSeq: integer("last_seq").notNull().default(0),
    /** Seq of the last event of the effective history (0 when it is empty): the parent of the next turn. */
    tailSeq: integer("tail_seq").notNull().default(0),
    forkedFromSessionId: text("forked_from_session_id"),
    forkedBeforeInvocationId: text("forked_before_invocation_id"),
    /** A fork's pieces of other sessions' logs below its boundary, JSON (lib/db/tx/log.ts): inherited, not copied. */
    inherited: text("inherited"),
    /** The highest seq of this session's own rows that a fork inherits: those rows never change again. */
    sharedUntil: integer("shared_until").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: integer("updated_at").notNull(),
    /** The user's activity counter at this chat's last write. */
    activity: integer("activity").notNull().default(0),
    storedBytes: integer("stored_bytes").notNull().default(0),
    /** The running turn's task, held by a lease that its app instance renews. */
    turnTaskId: text("turn_task_id"),
    turnOwner: text("turn_owner"),
    turnLeaseUntil: integer("turn_lease_until"),
    turnCancel: integer("turn_cancel", { mode: "boolean" }).notNull().default(false),
    /** False for chats stored before invocations were recorded: filled in once at start-up. */
    treeBuilt: integer("tree_built", { mode: "boolean" }).notNull().default(true),
    /** Set when the user deleted a chat whose rows forks still share: hidden everywhere, collected with its last fork. */
    deletedAt: integer("deleted_at"),
    /** Set while an import writes the chat in steps (lib/db/import-chat.ts): nobody's to see; once passed, any sweep removes it. */
    importLeaseUntil: integer("import_lease_until"),
    /** False for chats stored before search: their rows are indexed once at start-up (lib/db/prepare.ts). */
    searchIndexed: integer("search_indexed", { mode: "boolean" }).notNull().default(true),
  },
  (t) => [
    index("sessions_user_activity").on(t.userId, t.activity),
    index("sessions_forked_from").on(t.forkedFromSessionId),
    index("sessions_turn_lease").on(t.turnLeaseUntil).where(sql`turn_task_id IS NOT NULL`),
    index("sessions_import_lease").on(t.importLeaseUntil).where(sql`import_lease_until IS NOT NULL`),
  ],
);

export const events = sqliteTable(
  "events",
  {
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    /** The session's total order, assigned by the store; never the timestamp. */
    seq: integer("seq").notNull(),
    /** The event id; the column is the authority (a fork copies `data` unchanged under new ids). */
    id: text("id").notNull(),
    invocationId: text("invocation_id").notNull(),
    author: text("author").notNull(),
    timestamp: real("timestamp").notNull(),
    /** The whole ADK event, snake_case JSON. */
    data: text("data").notNull(),
    /** Session-scoped part of actions.state_delta, so state replays read no event blobs. */
    stateDelta: text("state_delta"),
    artifactDelta: text("artifact_delta"),
    /** For rewind markers: where the backward effective-history walk continues. */
    markerParent: integer("marker_parent"),
    /**
     * For events with text: the row of the full-text index `search_fts` (an FTS5 table, drizzle/sqlite/0010_search_fts.sql)
     * holding its words, written with the event; newer messages have higher ones (lib/db/tx/search-index.ts).
     */
    searchPos: integer("search_pos"),
  },
  (t) => [
    primaryKey({ columns: [t.sessionId, t.seq] }),
    uniqueIndex("events_search_pos").on(t.searchPos).where(sql`search_pos IS NOT NULL`),
    // Covering, so a session's markers are read from this small index alone.
    index("events_markers").on(t.sessionId, t.seq, t.markerParent, t.invocationId).where(sql`marker_parent IS NOT NULL`),
    index("events_artifact_deltas").on(t.sessionId, t.seq).where(sql`artifact_delta IS NOT NULL`),
  ],
);

/** One row per invocation (a turn or a rewind marker): its events, its place in the chat's tree, its A2A task (docs/semantics.md). */
export const invocations = sqliteTable(
  "invocations",
  {
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    invocationId: text("invocation_id").notNull(),
    firstSeq: integer("first_seq").notNull(),
    /** Seq of its last event: a task's history is read from first_seq..last_seq. */
    lastSeq: integer("last_seq").notNull(),
    /** The chat's last visible invocation when this one began: a turn's parent, or the leaf of the head a marker ended. */
    afterInvocationId: text("after_invocation_id"),
    /** Turns on the path to this invocation (a marker: turns in the head it ended). */
    depth: integer("depth").notNull(),
    isMarker: integer("is_marker", { mode: "boolean" }).notNull(),
    taskId: text("task_id"),
    /** The A2A messageId that started the task: a retried send finds its task instead of running twice. */
    messageId: text("message_id"),
    /** The task's `{status, metadata, artifacts?}`; its history is the invocation's events. */
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
    index("invocations_waiting").on(t.sessionId, t.firstSeq).where(sql`json_extract(task, '$.status.state') = 'input-required'`),
  ],
);

/** A name and a pin given one turn of a chat, a version in its map and History; a fork starts without its source's. */
export const versionLabels = sqliteTable(
  "version_labels",
  {
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    invocationId: text("invocation_id").notNull(),
    label: text("label"),
    pinned: integer("pinned", { mode: "boolean" }).notNull().default(false),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.invocationId] })],
);

/** Session state after event `seq`, every CHECKPOINT_EVERY events, so rewinds replay a bounded tail. */
export const stateCheckpoints = sqliteTable(
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

/** Keys the search index holds a user's rows under besides their own: the merged guests' (lib/db/tx/search-index.ts). */
export const searchKeys = sqliteTable(
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
export const searchTexts = sqliteTable(
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
export const searchMarks = sqliteTable(
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

export const appState = sqliteTable(
  "app_state",
  { agent: text("agent").notNull(), key: text("key").notNull(), value: text("value").notNull() },
  (t) => [primaryKey({ columns: [t.agent, t.key] })],
);

export const userState = sqliteTable(
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

export const artifacts = sqliteTable(
  "artifacts",
  {
    /** The session id, or `user/<user id>/<agent>` for `user:` files. */
    scope: text("scope").notNull(),
    filename: text("filename").notNull(),
    version: integer("version").notNull(),
    sessionId: text("session_id").references(() => sessions.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    mimeType: text("mime_type").notNull(),
    size: integer("size").notNull(),
    data: blob("data", { mode: "buffer" }).notNull(),
    /** A version that removes the file: listings skip it and loading it is "not found". */
    tombstone: integer("tombstone", { mode: "boolean" }).notNull().default(false),
    /** For a version a rewind wrote: the original version whose content it brought back. */
    restoredFrom: integer("restored_from"),
    createdAt: createdAt(),
    /** An attachment's version: its bytes are the owner's blob with this hash (`blobs`; indexed to tell a blob still named), `data` is empty. */
    blobSha256: text("blob_sha256"),
  },
  (t) => [
    primaryKey({ columns: [t.scope, t.filename, t.version] }),
    index("artifacts_session").on(t.sessionId),
    index("artifacts_blob").on(t.userId, t.blobSha256).where(sql`blob_sha256 IS NOT NULL`),
  ],
);

/**
 * A read-only link to one version of a chat (docs/api.md, "Share links"): the token is only ever stored
 * hashed; the view is the chat's log up to `up_to_seq` as it was when shared. Revoking deletes the row.
 */
export const shareLinks = sqliteTable(
  "share_links",
  {
    id: text("id").primaryKey(),
    /** SHA-256 of the token, hex: a leaked table gives no working link. */
    tokenHash: text("token_hash").notNull(),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    /** The chat's name when shared: the link shows that, whatever the chat is called later. */
    name: text("name").notNull().default(""),
    /** The chat's last seq when shared: the log is append-only, so its effective history up to here is that version. */
    upToSeq: integer("up_to_seq").notNull(),
    includeTools: integer("include_tools", { mode: "boolean" }).notNull().default(false),
    includeFiles: integer("include_files", { mode: "boolean" }).notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("share_links_token").on(t.tokenHash), index("share_links_session").on(t.sessionId)],
);

/** The built-in MCP todo server's world (lib/agent/mcp/todo-server.ts): per user, outside every chat, so no rewind touches it. */
export const todos = sqliteTable(
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
