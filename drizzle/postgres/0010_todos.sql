CREATE TABLE "todos" (
	"user_id" text NOT NULL,
	"id" text NOT NULL,
	"text" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "todos_user_id_id_pk" PRIMARY KEY("user_id","id")
);
--> statement-breakpoint
ALTER TABLE "todos" ADD CONSTRAINT "todos_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;