CREATE SEQUENCE "public"."search_positions" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "search_keys" (
	"user_id" text NOT NULL,
	"key" text NOT NULL,
	CONSTRAINT "search_keys_user_id_key_pk" PRIMARY KEY("user_id","key")
);
--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "search_pos" bigint;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "search_owner" text;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "search_doc" "tsvector";--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "search_indexed" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "search_keys" ADD CONSTRAINT "search_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "events_search" ON "events" USING gin ("search_doc") WHERE search_doc IS NOT NULL;--> statement-breakpoint
CREATE INDEX "events_search_owner" ON "events" USING btree ("search_owner","search_pos") WHERE search_owner IS NOT NULL;--> statement-breakpoint
-- Chats stored before search get their messages indexed once, at start-up (lib/db/prepare.ts).
UPDATE "sessions" SET "search_indexed" = false;
