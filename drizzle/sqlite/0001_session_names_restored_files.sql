ALTER TABLE `artifacts` ADD `restored_from` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `named_by_user` integer DEFAULT false NOT NULL;--> statement-breakpoint
UPDATE `sessions` SET `named_by_user` = true;
