ALTER TABLE "sessions" ADD COLUMN "inherited" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "shared_until" integer DEFAULT 0 NOT NULL;