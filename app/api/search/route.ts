import { handler, readQuery } from "@/lib/api/handler";
import { searchQuery } from "@/lib/api/schemas";
import { searchChats } from "@/lib/db/queries";

export const GET = handler(async ({ request, userId }) => {
  const query = readQuery(request, searchQuery);
  const page = await searchChats(userId, {
    q: query.q,
    includeRewound: query.include_rewound === "true",
    limit: query.limit,
    before: query.before,
  });
  return { data: page.items, next_before: page.nextBefore };
});
