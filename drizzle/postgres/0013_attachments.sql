CREATE TABLE "blob_chunks" (
	"blob_id" text NOT NULL,
	"seq" integer NOT NULL,
	"data" "bytea" NOT NULL,
	CONSTRAINT "blob_chunks_blob_id_seq_pk" PRIMARY KEY("blob_id","seq")
);
--> statement-breakpoint
CREATE TABLE "blobs" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"sha256" text,
	"size" bigint DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	"lease_until" bigint
);
--> statement-breakpoint
CREATE TABLE "uploads" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"blob_id" text NOT NULL,
	"filename" text NOT NULL,
	"mime_type" text NOT NULL,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "artifacts" ADD COLUMN "blob_sha256" text;--> statement-breakpoint
ALTER TABLE "blob_chunks" ADD CONSTRAINT "blob_chunks_blob_id_blobs_id_fk" FOREIGN KEY ("blob_id") REFERENCES "public"."blobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "blobs" ADD CONSTRAINT "blobs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "uploads" ADD CONSTRAINT "uploads_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "uploads" ADD CONSTRAINT "uploads_blob_id_blobs_id_fk" FOREIGN KEY ("blob_id") REFERENCES "public"."blobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "blobs_user_sha256" ON "blobs" USING btree ("user_id","sha256");--> statement-breakpoint
CREATE INDEX "blobs_lease" ON "blobs" USING btree ("lease_until") WHERE lease_until IS NOT NULL;--> statement-breakpoint
CREATE INDEX "uploads_user" ON "uploads" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "uploads_blob" ON "uploads" USING btree ("blob_id");--> statement-breakpoint
CREATE INDEX "uploads_expires" ON "uploads" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "artifacts_blob" ON "artifacts" USING btree ("user_id","blob_sha256") WHERE blob_sha256 IS NOT NULL;