import { listAgents } from "@/lib/agent/registry";
import { handler, readInput } from "@/lib/api/handler";
import { createSessionInput } from "@/lib/api/schemas";
import { createSession, listSessions } from "@/lib/db/queries";
import { InvalidReferenceError } from "@/lib/errors";

export const GET = handler(({ userId }) => ({ data: listSessions(userId) }));

export const POST = handler(async ({ request, userId }) => {
  const input = await readInput(request, createSessionInput);
  const agent = input.agent ?? "demo";
  if (!listAgents().some((a) => a.name === agent)) throw new InvalidReferenceError(`Unknown agent: ${agent}`);
  return { data: createSession(userId, { ...input, agent }), status: 201 };
});
