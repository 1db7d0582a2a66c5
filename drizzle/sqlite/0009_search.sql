CREATE TABLE `search_keys` (
	`user_id` text NOT NULL,
	`key` text NOT NULL,
	PRIMARY KEY(`user_id`, `key`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `events` ADD `search_pos` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `events_search_pos` ON `events` (`search_pos`) WHERE search_pos IS NOT NULL;--> statement-breakpoint
ALTER TABLE `sessions` ADD `search_indexed` integer DEFAULT true NOT NULL;--> statement-breakpoint
-- Chats stored before search get their messages indexed once, at start-up (lib/db/prepare.ts).
UPDATE `sessions` SET `search_indexed` = false;
