import { handler, readInput } from "@/lib/api/handler";
import { rewindInput } from "@/lib/api/schemas";
import { rewindSession } from "@/lib/db/queries";

export const POST = handler<{ id: string }>(async ({ request, userId, params }) => {
  const input = await readInput(request, rewindInput);
  return { data: await rewindSession(userId, params.id, input.rewind_before_invocation_id) };
});
