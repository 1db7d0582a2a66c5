import { handler, readInput } from "@/lib/api/handler";
import { forkInput } from "@/lib/api/schemas";
import { forkSession } from "@/lib/db/queries";

export const POST = handler<{ id: string }>(async ({ request, userId, params }) => {
  const input = await readInput(request, forkInput);
  const session = await forkSession(userId, params.id, { invocationId: input.rewind_before_invocation_id, name: input.name });
  return { data: session, status: 201 };
});
