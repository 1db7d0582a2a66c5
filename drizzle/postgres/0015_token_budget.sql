ALTER TABLE "users" ADD COLUMN "tokens_day" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "tokens_used" bigint DEFAULT 0 NOT NULL;