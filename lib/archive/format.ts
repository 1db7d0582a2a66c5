/**
 * Retrace's JSON archive (docs/api.md, "Export and import"): one chat or many, each its whole raw log —
 * events in seq order (rewind markers included, so every version comes back), tasks, every version of
 * every session file, initial and current state, its lineage, and the names and pins the user gave its
 * turns. Within a chat the writer puts the session first, then the bytes of its attachments (`blobs`, each
 * content once per archive, in chunks), files, events, tasks and labels, so a reader can write them in that
 * order as they stream. Labels and blobs came later within version 1: an archive without them imports as it
 * did, and a reader that does not know them skips the sections.
 */
import { z } from "zod";
import { MAX_BODY_BYTES } from "@/lib/session/limits";

export const ARCHIVE_FORMAT = "retrace.archive";
export const ARCHIVE_VERSION = 1;

/** The largest file an import brings in (an archive's, a ChatGPT attachment): as large as one request may be. */
export const MAX_FILE_BYTES = MAX_BODY_BYTES;
/** The length of such a file's `data_base64`: the one value of an archive that may be longer than a message. */
export const MAX_FILE_BASE64 = 4 * Math.ceil(MAX_FILE_BYTES / 3);

const json = z.json();
const state = z.record(z.string(), json);

export const archiveSession = z.looseObject({
  id: z.string().min(1).max(200),
  agent: z.string().min(1).max(100),
  name: z.string().max(200),
  named_by_user: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  initial_state: state,
  /** Informational: import replays the log, which is the authority, and the round-trip test compares the two. */
  state: state,
  last_seq: z.int().nonnegative(),
  forked_from_session_id: z.string().nullable(),
  forked_before_invocation_id: z.string().nullable(),
});
export type ArchiveSession = z.infer<typeof archiveSession>;

export const archiveFile = z.strictObject({
  filename: z.string().min(1).max(300),
  version: z.int().nonnegative(),
  mime_type: z.string().max(200),
  tombstone: z.boolean(),
  restored_from: z.int().nonnegative().nullable(),
  created_at: z.string(),
  /** Hex SHA-256 of the bytes, checked on import. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** The bytes; absent for an attachment, whose bytes are the blob with its `sha256`, earlier in the archive. */
  data_base64: z.string().optional(),
});
export type ArchiveFile = z.infer<typeof archiveFile>;

/** The size of a blob's chunks in an archive: every chunk but a blob's last has this many bytes. */
export const BLOB_CHUNK_BYTES = 256 * 1024;

/** One chunk of an attachment's bytes (docs/semantics.md, "Attachments"): chunks of a blob come together, in order. */
export const archiveBlob = z.strictObject({
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** The whole blob's size. */
  size: z.int().nonnegative(),
  seq: z.int().nonnegative(),
  data_base64: z.string().max(4 * Math.ceil(BLOB_CHUNK_BYTES / 3)),
});
export type ArchiveBlob = z.infer<typeof archiveBlob>;

/** An ADK event as the log shows it, with its seq. */
export const archiveEvent = z.looseObject({
  seq: z.int().positive(),
  id: z.string().min(1).max(200),
  invocation_id: z.string().min(1).max(200),
  author: z.string().min(1).max(200),
  timestamp: z.number(),
});
export type ArchiveEvent = z.infer<typeof archiveEvent>;

/** The A2A task stored on an invocation: its status, metadata and artifacts (its history is that invocation's events). */
export const archiveTask = z.strictObject({
  invocation_id: z.string().min(1).max(200),
  task_id: z.string().min(1).max(300),
  message_id: z.string().max(300).nullable(),
  task: z.looseObject({ status: z.looseObject({ state: z.string() }), metadata: z.record(z.string(), json).optional() }),
});
export type ArchiveTask = z.infer<typeof archiveTask>;

/** A name or pin the user gave one of the chat's turns (docs/semantics.md, "The map"); the same limits as the API's. */
export const archiveLabel = z
  .strictObject({
    invocation_id: z.string().min(1).max(200),
    label: z.string().trim().min(1).max(100).nullable(),
    pinned: z.boolean(),
  })
  .refine((l) => l.label !== null || l.pinned, "a label names or pins its turn");
export type ArchiveLabel = z.infer<typeof archiveLabel>;

/** One record of a chat, as it streams out of (or into) an archive. */
export type ChatRecord =
  | { kind: "session"; value: ArchiveSession }
  | { kind: "blob"; value: ArchiveBlob }
  | { kind: "file"; value: ArchiveFile }
  | { kind: "event"; value: ArchiveEvent }
  | { kind: "task"; value: ArchiveTask }
  | { kind: "label"; value: ArchiveLabel };

export const SECTIONS = { blobs: "blob", files: "file", events: "event", tasks: "task", labels: "label" } as const;
