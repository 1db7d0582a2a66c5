ALTER TABLE `users` ADD `tokens_day` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `tokens_used` integer DEFAULT 0 NOT NULL;