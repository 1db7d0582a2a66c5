CREATE TABLE `version_labels` (
	`session_id` text NOT NULL,
	`invocation_id` text NOT NULL,
	`label` text,
	`pinned` integer DEFAULT false NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`session_id`, `invocation_id`),
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
