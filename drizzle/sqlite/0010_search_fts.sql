-- The full-text index (lib/db/search-index.ts): an FTS5 table drizzle-kit cannot declare. It stores no text, only
-- which rows hold which words: the words come tokenized from lib/session/search-text.ts, so FTS5's `ascii`
-- tokenizer only splits them at spaces (`_` joins the owner keys and prefix entries). Its rowid is
-- events.search_pos; rows go with their event, whatever deletes it (a chat, a tombstone's unread rows, a user).
CREATE VIRTUAL TABLE `search_fts` USING fts5(`words`, content='', contentless_delete=1, tokenize="ascii tokenchars '_'", detail=none);
--> statement-breakpoint
CREATE TRIGGER `events_search_gone` AFTER DELETE ON `events` WHEN old.`search_pos` IS NOT NULL BEGIN
  DELETE FROM `search_fts` WHERE `rowid` = old.`search_pos`;
END;
