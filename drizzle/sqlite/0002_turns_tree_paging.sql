CREATE TABLE `invocations` (
	`session_id` text NOT NULL,
	`invocation_id` text NOT NULL,
	`first_seq` integer NOT NULL,
	`last_seq` integer NOT NULL,
	`after_invocation_id` text,
	`depth` integer NOT NULL,
	`is_marker` integer NOT NULL,
	`task_id` text,
	`message_id` text,
	`task` text,
	PRIMARY KEY(`session_id`, `invocation_id`),
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `invocations_session_first_seq` ON `invocations` (`session_id`,`first_seq`);--> statement-breakpoint
CREATE INDEX `invocations_session_after` ON `invocations` (`session_id`,`after_invocation_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `invocations_task` ON `invocations` (`task_id`) WHERE task_id IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `invocations_session_message` ON `invocations` (`session_id`,`message_id`) WHERE message_id IS NOT NULL;--> statement-breakpoint
DROP INDEX `sessions_user_updated`;--> statement-breakpoint
ALTER TABLE `sessions` ADD `tail_seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sessions` ADD `activity` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sessions` ADD `stored_bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sessions` ADD `turn_task_id` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `turn_owner` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `turn_lease_until` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `turn_cancel` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `sessions` ADD `tree_built` integer DEFAULT true NOT NULL;--> statement-breakpoint
CREATE INDEX `sessions_user_activity` ON `sessions` (`user_id`,`activity`);--> statement-breakpoint
CREATE INDEX `sessions_turn_lease` ON `sessions` (`turn_lease_until`) WHERE turn_task_id IS NOT NULL;--> statement-breakpoint
DROP INDEX `events_markers`;--> statement-breakpoint
CREATE INDEX `events_markers` ON `events` (`session_id`,`seq`,`marker_parent`,`invocation_id`) WHERE marker_parent IS NOT NULL;--> statement-breakpoint
ALTER TABLE `tasks` ADD `message_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `tasks_session_message` ON `tasks` (`session_id`,`message_id`);--> statement-breakpoint
ALTER TABLE `users` ADD `activity` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `stored_bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Chats stored before this migration get their invocation tree (and tail) built once, at start-up.
UPDATE `sessions` SET `tree_built` = false;--> statement-breakpoint
-- A total order of chats that keeps today's one (most recently active first).
UPDATE `sessions` SET `activity` = `r`.`n` FROM (SELECT `id`, ROW_NUMBER() OVER (PARTITION BY `user_id` ORDER BY `updated_at`, `created_at`, `rowid`) AS `n` FROM `sessions`) AS `r` WHERE `r`.`id` = `sessions`.`id`;--> statement-breakpoint
UPDATE `users` SET `activity` = COALESCE((SELECT MAX(`activity`) FROM `sessions` WHERE `sessions`.`user_id` = `users`.`id`), 0);--> statement-breakpoint
UPDATE `sessions` SET `stored_bytes` = COALESCE((SELECT SUM(LENGTH(CAST(`data` AS BLOB))) FROM `events` WHERE `events`.`session_id` = `sessions`.`id`), 0) + COALESCE((SELECT SUM(`size`) FROM `artifacts` WHERE `artifacts`.`session_id` = `sessions`.`id`), 0);--> statement-breakpoint
UPDATE `users` SET `stored_bytes` = COALESCE((SELECT SUM(`stored_bytes`) FROM `sessions` WHERE `sessions`.`user_id` = `users`.`id`), 0) + COALESCE((SELECT SUM(`size`) FROM `artifacts` WHERE `artifacts`.`user_id` = `users`.`id` AND `artifacts`.`session_id` IS NULL), 0);
