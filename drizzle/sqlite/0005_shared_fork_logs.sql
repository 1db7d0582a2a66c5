ALTER TABLE `sessions` ADD `inherited` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `shared_until` integer DEFAULT 0 NOT NULL;