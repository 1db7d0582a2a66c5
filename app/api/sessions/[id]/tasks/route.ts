import { handler, listing, readQuery } from "@/lib/api/handler";
import { pageRequestOf, tasksQuery } from "@/lib/api/schemas";
import { listTasks } from "@/lib/db/queries";

export const GET = handler<{ id: string }>(async ({ request, userId, params }) => {
  const query = readQuery(request, tasksQuery);
  const page = pageRequestOf(query);
  return listing(await listTasks(userId, params.id, { includeRewound: query.include_rewound === "true", ...page }), page !== undefined);
});
