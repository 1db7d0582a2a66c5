ALTER TABLE `sessions` ADD `import_lease_until` integer;--> statement-breakpoint
CREATE INDEX `sessions_import_lease` ON `sessions` (`import_lease_until`) WHERE import_lease_until IS NOT NULL;