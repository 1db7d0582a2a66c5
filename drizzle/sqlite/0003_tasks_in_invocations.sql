-- Every invocation gets its row (its place in the tree is filled in at start-up), then takes its task:
-- status and metadata move over, the history is read from the events from now on.
INSERT INTO `invocations` (`session_id`, `invocation_id`, `first_seq`, `last_seq`, `after_invocation_id`, `depth`, `is_marker`)
SELECT `session_id`, `invocation_id`, MIN(`seq`), MAX(`seq`), NULL, 0, MAX(`marker_parent` IS NOT NULL) FROM `events` GROUP BY `session_id`, `invocation_id`;--> statement-breakpoint
UPDATE `invocations` SET `task_id` = `t`.`id`, `message_id` = `t`.`message_id`, `task` = json_remove(`t`.`data`, '$.history', '$.id', '$.contextId', '$.kind')
FROM `tasks` AS `t` WHERE `t`.`session_id` = `invocations`.`session_id` AND `t`.`invocation_id` = `invocations`.`invocation_id`;--> statement-breakpoint
DROP TABLE `tasks`;--> statement-breakpoint
DROP INDEX `events_session_invocation`;
