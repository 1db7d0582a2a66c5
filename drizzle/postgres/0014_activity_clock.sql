-- Activity becomes a clock (lib/db/tx/users.ts): each chat's counter value turns into a time in the same order,
-- the latest last-write time among the user's chats up to it plus its place, so no two tie.
UPDATE "sessions" SET "activity" = "r"."n" FROM (SELECT "id", MAX("updated_at") OVER (PARTITION BY "user_id" ORDER BY "activity", "id" ROWS UNBOUNDED PRECEDING) + ROW_NUMBER() OVER (PARTITION BY "user_id" ORDER BY "activity", "id") AS "n" FROM "sessions") AS "r" WHERE "r"."id" = "sessions"."id";--> statement-breakpoint
UPDATE "users" SET "activity" = COALESCE((SELECT MAX("activity") FROM "sessions" WHERE "sessions"."user_id" = "users"."id"), 0);
