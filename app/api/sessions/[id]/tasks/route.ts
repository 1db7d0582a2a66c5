import { handler } from "@/lib/api/handler";
import { listTasks } from "@/lib/db/queries";

export const GET = handler<{ id: string }>(({ request, userId, params }) => {
  const includeRewound = new URL(request.url).searchParams.get("include_rewound") === "true";
  return { data: listTasks(userId, params.id, { includeRewound }) };
});
