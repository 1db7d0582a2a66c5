CREATE TABLE `share_links` (
	`id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`session_id` text NOT NULL,
	`up_to_seq` integer NOT NULL,
	`include_tools` integer DEFAULT false NOT NULL,
	`include_files` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `share_links_token` ON `share_links` (`token_hash`);--> statement-breakpoint
CREATE INDEX `share_links_session` ON `share_links` (`session_id`);