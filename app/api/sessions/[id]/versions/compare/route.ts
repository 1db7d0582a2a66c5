import { handler, readQuery } from "@/lib/api/handler";
import { compareQuery } from "@/lib/api/schemas";
import { compareVersions } from "@/lib/db/queries";

export const GET = handler<{ id: string }>(async ({ request, userId, params }) => {
  const { a, b } = readQuery(request, compareQuery);
  return { data: await compareVersions(userId, params.id, a, b) };
});
