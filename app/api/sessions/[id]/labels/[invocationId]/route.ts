import { handler, readInput } from "@/lib/api/handler";
import { labelInput } from "@/lib/api/schemas";
import { labelVersion } from "@/lib/db/queries";

export const PUT = handler<{ id: string; invocationId: string }>(async ({ request, userId, params }) => {
  const input = await readInput(request, labelInput);
  return { data: await labelVersion(userId, params.id, params.invocationId, input) };
});
