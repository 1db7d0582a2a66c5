ALTER TABLE `share_links` ADD `name` text DEFAULT '' NOT NULL;--> statement-breakpoint
-- Links made before names were kept show the chat's name as it is now, and keep it from here on.
UPDATE `share_links` SET `name` = (SELECT `name` FROM `sessions` WHERE `sessions`.`id` = `share_links`.`session_id`);
