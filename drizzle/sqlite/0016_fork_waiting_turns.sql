CREATE INDEX `invocations_waiting` ON `invocations` (`session_id`,`first_seq`) WHERE json_extract(task, '$.status.state') = 'input-required';--> statement-breakpoint
-- A turn waiting for a decision in rows a fork already shared (or a fork copied in below its own, `flatten`) could
-- never be decided, in the fork or in its source (forks copy such turns since, lib/db/tx/fork.ts): it is canceled,
-- as a copy's is (lib/db/tx/tasks.ts, copiedStatus).
UPDATE `invocations` SET `task` = json_set(json_remove(`task`, '$.status.message'), '$.status.state', 'canceled')
WHERE json_extract(task, '$.status.state') = 'input-required'
  AND `first_seq` <= (SELECT MAX(`shared_until`, COALESCE(json_extract(`inherited`, '$[#-1].to'), 0)) FROM `sessions` WHERE `sessions`.`id` = `invocations`.`session_id`);
