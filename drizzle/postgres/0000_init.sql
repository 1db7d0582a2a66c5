CREATE TABLE "app_state" (
	"agent" text NOT NULL,
	"key" text NOT NULL,
	"value" text NOT NULL,
	CONSTRAINT "app_state_agent_key_pk" PRIMARY KEY("agent","key")
);
--> statement-breakpoint
CREATE TABLE "artifacts" (
	"scope" text NOT NULL,
	"filename" text NOT NULL,
	"version" integer NOT NULL,
	"session_id" text,
	"user_id" text NOT NULL,
	"mime_type" text NOT NULL,
	"size" integer NOT NULL,
	"data" "bytea" NOT NULL,
	"tombstone" boolean DEFAULT false NOT NULL,
	"restored_from" integer,
	"created_at" bigint NOT NULL,
	CONSTRAINT "artifacts_scope_filename_version_pk" PRIMARY KEY("scope","filename","version")
);
--> statement-breakpoint
CREATE TABLE "events" (
	"session_id" text NOT NULL,
	"seq" integer NOT NULL,
	"id" text NOT NULL,
	"invocation_id" text NOT NULL,
	"author" text NOT NULL,
	"timestamp" double precision NOT NULL,
	"data" text NOT NULL,
	"state_delta" text,
	"artifact_delta" text,
	"marker_parent" integer,
	CONSTRAINT "events_session_id_seq_pk" PRIMARY KEY("session_id","seq")
);
--> statement-breakpoint
CREATE TABLE "invocations" (
	"session_id" text NOT NULL,
	"invocation_id" text NOT NULL,
	"first_seq" integer NOT NULL,
	"last_seq" integer NOT NULL,
	"after_invocation_id" text,
	"depth" integer NOT NULL,
	"is_marker" boolean NOT NULL,
	"task_id" text,
	"message_id" text,
	"task" text,
	CONSTRAINT "invocations_session_id_invocation_id_pk" PRIMARY KEY("session_id","invocation_id")
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"agent" text NOT NULL,
	"name" text NOT NULL,
	"named_by_user" boolean DEFAULT false NOT NULL,
	"state" text DEFAULT '{}' NOT NULL,
	"initial_state" text DEFAULT '{}' NOT NULL,
	"last_seq" integer DEFAULT 0 NOT NULL,
	"tail_seq" integer DEFAULT 0 NOT NULL,
	"forked_from_session_id" text,
	"forked_before_invocation_id" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"activity" bigint DEFAULT 0 NOT NULL,
	"stored_bytes" bigint DEFAULT 0 NOT NULL,
	"turn_task_id" text,
	"turn_owner" text,
	"turn_lease_until" bigint,
	"turn_cancel" boolean DEFAULT false NOT NULL,
	"tree_built" boolean DEFAULT true NOT NULL
);
--> statement-breakpoint
CREATE TABLE "state_checkpoints" (
	"session_id" text NOT NULL,
	"seq" integer NOT NULL,
	"state" text NOT NULL,
	CONSTRAINT "state_checkpoints_session_id_seq_pk" PRIMARY KEY("session_id","seq")
);
--> statement-breakpoint
CREATE TABLE "user_state" (
	"user_id" text NOT NULL,
	"agent" text NOT NULL,
	"key" text NOT NULL,
	"value" text NOT NULL,
	CONSTRAINT "user_state_user_id_agent_key_pk" PRIMARY KEY("user_id","agent","key")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"created_at" bigint NOT NULL,
	"activity" bigint DEFAULT 0 NOT NULL,
	"stored_bytes" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "artifacts" ADD CONSTRAINT "artifacts_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "artifacts" ADD CONSTRAINT "artifacts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invocations" ADD CONSTRAINT "invocations_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "state_checkpoints" ADD CONSTRAINT "state_checkpoints_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_state" ADD CONSTRAINT "user_state_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "artifacts_session" ON "artifacts" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "events_markers" ON "events" USING btree ("session_id","seq","marker_parent","invocation_id") WHERE marker_parent IS NOT NULL;--> statement-breakpoint
CREATE INDEX "events_artifact_deltas" ON "events" USING btree ("session_id","seq") WHERE artifact_delta IS NOT NULL;--> statement-breakpoint
CREATE INDEX "invocations_session_first_seq" ON "invocations" USING btree ("session_id","first_seq");--> statement-breakpoint
CREATE INDEX "invocations_session_after" ON "invocations" USING btree ("session_id","after_invocation_id");--> statement-breakpoint
CREATE UNIQUE INDEX "invocations_task" ON "invocations" USING btree ("task_id") WHERE task_id IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "invocations_session_message" ON "invocations" USING btree ("session_id","message_id") WHERE message_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX "sessions_user_activity" ON "sessions" USING btree ("user_id","activity");--> statement-breakpoint
CREATE INDEX "sessions_forked_from" ON "sessions" USING btree ("forked_from_session_id");--> statement-breakpoint
CREATE INDEX "sessions_turn_lease" ON "sessions" USING btree ("turn_lease_until") WHERE turn_task_id IS NOT NULL;