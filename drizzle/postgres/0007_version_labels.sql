CREATE TABLE "version_labels" (
	"session_id" text NOT NULL,
	"invocation_id" text NOT NULL,
	"label" text,
	"pinned" boolean DEFAULT false NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "version_labels_session_id_invocation_id_pk" PRIMARY KEY("session_id","invocation_id")
);
--> statement-breakpoint
ALTER TABLE "version_labels" ADD CONSTRAINT "version_labels_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE cascade ON UPDATE no action;