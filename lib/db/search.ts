/**
 * Searching a user's chats (docs/semantics.md, "Search"): the index finds the user's messages holding the
 * words, newest first (lib/db/tx/search-index.ts); each becomes a hit in every live chat of theirs that shows
 * it — the chat that stores it and the forks that read it — kept when that chat's current view shows it,
 * or, with `includeRewound`, marked `rewound` (the client switches to the version holding it).
 */
import { ValidationError } from "@/lib/errors";
import { MAX_QUERY_WORDS, parseQuery } from "@/lib/session/search-text";
import { getDb } from "./connection";
import type { Page } from "./paging";
import { searchTx } from "./tx/search";
import type { SearchHit } from "./types";

export async function searchChats(
  userId: string,
  input: { q: string; includeRewound?: boolean; limit?: number; before?: string },
): Promise<Page<SearchHit>> {
  const query = parseQuery(input.q);
  if (!query) throw new ValidationError("Search for a word: the query has no letters or digits");
  if (query.words.length + (query.prefix ? 1 : 0) > MAX_QUERY_WORDS)
    throw new ValidationError(`Search for at most ${MAX_QUERY_WORDS} words`);
  const limit = input.limit ?? 20;
  const db = await getDb();
  return db.read((tx) => searchTx(tx, userId, query, { ...input, limit }));
}
