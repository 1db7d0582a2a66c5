CREATE TABLE `search_marks` (
	`session_id` text NOT NULL,
	`seq` integer NOT NULL,
	`initials` text NOT NULL,
	`marks` text NOT NULL,
	PRIMARY KEY(`session_id`, `seq`, `initials`),
	FOREIGN KEY (`session_id`,`seq`) REFERENCES `events`(`session_id`,`seq`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `search_texts` (
	`session_id` text NOT NULL,
	`seq` integer NOT NULL,
	`part` integer NOT NULL,
	`text` text NOT NULL,
	PRIMARY KEY(`session_id`, `seq`, `part`),
	FOREIGN KEY (`session_id`,`seq`) REFERENCES `events`(`session_id`,`seq`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Messages indexed before get their snippets' texts once, at start-up (lib/db/prepare.ts).
UPDATE `sessions` SET `search_indexed` = false;
