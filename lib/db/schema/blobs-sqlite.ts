/**
 * Attachments on SQLite (docs/semantics.md, "Attachments"): the blobs that hold their bytes, once per user and
 * content (lib/db/tx/blobs.ts), and the uploads that may be attached until they expire. File versions name a
 * blob by `artifacts.blob_sha256`. lib/db/schema/blobs-postgres.ts is the same for PostgreSQL.
 */
import { sql } from "drizzle-orm";
import { blob, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./sqlite";

const createdAt = () => integer("created_at").notNull();

/**
 * Attachment bytes, once per user and content (lib/db/tx/blobs.ts): `sha256` (what file versions name it by) is
 * set once all its bytes are written; `size` counts them (chunks in `blob_chunks`, all full but the last); a
 * blob being written or removed has a lease, past which any sweep removes it.
 */
export const blobs = sqliteTable(
  "blobs",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    sha256: text("sha256"),
    size: integer("size").notNull().default(0),
    createdAt: createdAt(),
    leaseUntil: integer("lease_until"),
  },
  (t) => [
    uniqueIndex("blobs_user_sha256").on(t.userId, t.sha256),
    index("blobs_lease").on(t.leaseUntil).where(sql`lease_until IS NOT NULL`),
  ],
);

export const blobChunks = sqliteTable(
  "blob_chunks",
  {
    blobId: text("blob_id")
      .notNull()
      .references(() => blobs.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    data: blob("data", { mode: "buffer" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.blobId, t.seq] })],
);

/** A file a user uploaded and may attach to a message until it expires (docs/api.md, "Uploads"). */
export const uploads = sqliteTable(
  "uploads",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    blobId: text("blob_id")
      .notNull()
      .references(() => blobs.id, { onDelete: "cascade" }),
    filename: text("filename").notNull(),
    mimeType: text("mime_type").notNull(),
    size: integer("size").notNull(),
    sha256: text("sha256").notNull(),
    createdAt: createdAt(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("uploads_user").on(t.userId), index("uploads_blob").on(t.blobId), index("uploads_expires").on(t.expiresAt)],
);
