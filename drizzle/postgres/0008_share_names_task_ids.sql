ALTER TABLE "share_links" ADD COLUMN "name" text DEFAULT '' NOT NULL;--> statement-breakpoint
-- Links made before names were kept show the chat's name as it is now, and keep it from here on.
UPDATE "share_links" SET "name" = (SELECT "name" FROM "sessions" WHERE "sessions"."id" = "share_links"."session_id");--> statement-breakpoint
-- A task a fork copied in from another fork's copy got one more "<fork id>:" each time; it keeps one, its own
-- (lib/db/tx/log.ts, givenTaskId): "<this row's session>:" and the id after the last colon, the task's own uuid.
UPDATE "invocations" SET "task_id" = "session_id" || ':' || substr("task_id", length(rtrim("task_id", replace("task_id", ':', ''))) + 1) WHERE "task_id" LIKE '%:%:%';
