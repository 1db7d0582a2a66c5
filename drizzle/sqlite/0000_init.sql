CREATE TABLE `app_state` (
	`agent` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`agent`, `key`)
);
--> statement-breakpoint
CREATE TABLE `artifacts` (
	`scope` text NOT NULL,
	`filename` text NOT NULL,
	`version` integer NOT NULL,
	`session_id` text,
	`user_id` text NOT NULL,
	`mime_type` text NOT NULL,
	`size` integer NOT NULL,
	`data` blob NOT NULL,
	`tombstone` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`scope`, `filename`, `version`),
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `artifacts_session` ON `artifacts` (`session_id`);--> statement-breakpoint
CREATE TABLE `events` (
	`session_id` text NOT NULL,
	`seq` integer NOT NULL,
	`id` text NOT NULL,
	`invocation_id` text NOT NULL,
	`author` text NOT NULL,
	`timestamp` real NOT NULL,
	`data` text NOT NULL,
	`state_delta` text,
	`artifact_delta` text,
	`marker_parent` integer,
	PRIMARY KEY(`session_id`, `seq`),
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `events_session_invocation` ON `events` (`session_id`,`invocation_id`,`seq`);--> statement-breakpoint
CREATE INDEX `events_markers` ON `events` (`session_id`,`seq`,`marker_parent`) WHERE marker_parent IS NOT NULL;--> statement-breakpoint
CREATE INDEX `events_artifact_deltas` ON `events` (`session_id`,`seq`) WHERE artifact_delta IS NOT NULL;--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`agent` text NOT NULL,
	`name` text NOT NULL,
	`state` text DEFAULT '{}' NOT NULL,
	`initial_state` text DEFAULT '{}' NOT NULL,
	`last_seq` integer DEFAULT 0 NOT NULL,
	`forked_from_session_id` text,
	`forked_before_invocation_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sessions_user_updated` ON `sessions` (`user_id`,`updated_at`);--> statement-breakpoint
CREATE INDEX `sessions_forked_from` ON `sessions` (`forked_from_session_id`);--> statement-breakpoint
CREATE TABLE `state_checkpoints` (
	`session_id` text NOT NULL,
	`seq` integer NOT NULL,
	`state` text NOT NULL,
	PRIMARY KEY(`session_id`, `seq`),
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`invocation_id` text NOT NULL,
	`position` integer NOT NULL,
	`data` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tasks_session_invocation` ON `tasks` (`session_id`,`invocation_id`);--> statement-breakpoint
CREATE INDEX `tasks_session_position` ON `tasks` (`session_id`,`position`);--> statement-breakpoint
CREATE TABLE `user_state` (
	`user_id` text NOT NULL,
	`agent` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`user_id`, `agent`, `key`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL
);
