/** Attachments on PostgreSQL: the same tables and columns as lib/db/schema/blobs-sqlite.ts, in PostgreSQL's types. */
import { sql } from "drizzle-orm";
import { bigint, customType, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { users } from "./postgres";

const bytea = customType<{ data: Buffer }>({ dataType: () => "bytea" });
const millis = <Name extends string>(name: Name) => bigint(name, { mode: "number" });
const createdAt = () => millis("created_at").notNull();

export const blobs = pgTable(
  "blobs",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    sha256: text("sha256"),
    size: millis("size").notNull().default(0),
    createdAt: createdAt(),
    leaseUntil: millis("lease_until"),
  },
  (t) => [
    uniqueIndex("blobs_user_sha256").on(t.userId, t.sha256),
    index("blobs_lease").on(t.leaseUntil).where(sql`lease_until IS NOT NULL`),
  ],
);

export const blobChunks = pgTable(
  "blob_chunks",
  {
    blobId: text("blob_id")
      .notNull()
      .references(() => blobs.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    data: bytea("data").notNull(),
  },
  (t) => [primaryKey({ columns: [t.blobId, t.seq] })],
);

export const uploads = pgTable(
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
    size: millis("size").notNull(),
    sha256: text("sha256").notNull(),
    createdAt: createdAt(),
    expiresAt: millis("expires_at").notNull(),
  },
  (t) => [index("uploads_user").on(t.userId), index("uploads_blob").on(t.blobId), index("uploads_expires").on(t.expiresAt)],
);
