CREATE TABLE `blob_chunks` (
	`blob_id` text NOT NULL,
	`seq` integer NOT NULL,
	`data` blob NOT NULL,
	PRIMARY KEY(`blob_id`, `seq`),
	FOREIGN KEY (`blob_id`) REFERENCES `blobs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `blobs` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`sha256` text,
	`size` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`lease_until` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `blobs_user_sha256` ON `blobs` (`user_id`,`sha256`);--> statement-breakpoint
CREATE INDEX `blobs_lease` ON `blobs` (`lease_until`) WHERE lease_until IS NOT NULL;--> statement-breakpoint
CREATE TABLE `uploads` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`blob_id` text NOT NULL,
	`filename` text NOT NULL,
	`mime_type` text NOT NULL,
	`size` integer NOT NULL,
	`sha256` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`blob_id`) REFERENCES `blobs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `uploads_user` ON `uploads` (`user_id`);--> statement-breakpoint
CREATE INDEX `uploads_blob` ON `uploads` (`blob_id`);--> statement-breakpoint
CREATE INDEX `uploads_expires` ON `uploads` (`expires_at`);--> statement-breakpoint
ALTER TABLE `artifacts` ADD `blob_sha256` text;--> statement-breakpoint
CREATE INDEX `artifacts_blob` ON `artifacts` (`user_id`,`blob_sha256`) WHERE blob_sha256 IS NOT NULL;