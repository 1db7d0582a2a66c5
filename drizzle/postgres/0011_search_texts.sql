CREATE TABLE "search_marks" (
	"session_id" text NOT NULL,
	"seq" integer NOT NULL,
	"initials" text NOT NULL,
	"marks" text NOT NULL,
	CONSTRAINT "search_marks_session_id_seq_initials_pk" PRIMARY KEY("session_id","seq","initials")
);
--> statement-breakpoint
CREATE TABLE "search_texts" (
	"session_id" text NOT NULL,
	"seq" integer NOT NULL,
	"part" integer NOT NULL,
	"text" text NOT NULL,
	CONSTRAINT "search_texts_session_id_seq_part_pk" PRIMARY KEY("session_id","seq","part")
);
--> statement-breakpoint
ALTER TABLE "search_marks" ADD CONSTRAINT "search_marks_session_id_seq_events_session_id_seq_fk" FOREIGN KEY ("session_id","seq") REFERENCES "public"."events"("session_id","seq") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "search_texts" ADD CONSTRAINT "search_texts_session_id_seq_events_session_id_seq_fk" FOREIGN KEY ("session_id","seq") REFERENCES "public"."events"("session_id","seq") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Messages indexed before get their snippets' texts once, at start-up (lib/db/prepare.ts).
UPDATE "sessions" SET "search_indexed" = false;
