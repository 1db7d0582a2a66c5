import { handler, readInput } from "@/lib/api/handler";
import { switchInput } from "@/lib/api/schemas";
import { switchSession } from "@/lib/db/queries";

export const POST = handler<{ id: string }>(async ({ request, userId, params }) => {
  const input = await readInput(request, switchInput);
  return { data: await switchSession(userId, params.id, input.invocation_id) };
});
