CREATE INDEX "invocations_waiting" ON "invocations" USING btree ("session_id","first_seq") WHERE (CAST(task AS jsonb) #>> '{status,state}') = 'input-required';--> statement-breakpoint
-- A turn waiting for a decision in rows a fork already shared (or a fork copied in below its own, `flatten`) could
-- never be decided, in the fork or in its source (forks copy such turns since, lib/db/tx/fork.ts): it is canceled,
-- as a copy's is (lib/db/tx/tasks.ts, copiedStatus).
UPDATE "invocations" SET "task" = CAST(jsonb_set(CAST("task" AS jsonb) #- '{status,message}', '{status,state}', '"canceled"') AS text)
FROM "sessions"
WHERE "sessions"."id" = "invocations"."session_id"
  AND "invocations"."first_seq" <= GREATEST("sessions"."shared_until", COALESCE(CAST(CAST("sessions"."inherited" AS jsonb) -> -1 ->> 'to' AS integer), 0))
  AND (CAST("invocations"."task" AS jsonb) #>> '{status,state}') = 'input-required';
