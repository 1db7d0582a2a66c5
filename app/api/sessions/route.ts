import { listAgents } from "@/lib/agent/registry";
import { handler, listing, readInput, readQuery } from "@/lib/api/handler";
import { createSessionInput, pageRequestOf, sessionsQuery } from "@/lib/api/schemas";
import { createSession, listSessions } from "@/lib/db/queries";
import { InvalidReferenceError } from "@/lib/errors";

export const GET = handler(async ({ request, userId }) => {
  const page = pageRequestOf(readQuery(request, sessionsQuery));
  return listing(await listSessions(userId, page), page !== undefined);
});

export const POST = handler(async ({ request, userId }) => {
  const input = await readInput(request, createSessionInput);
  if (input.agent && !listAgents().some((a) => a.name === input.agent)) throw new InvalidReferenceError(`Unknown agent: ${input.agent}`);
  return { data: await createSession(userId, input), status: 201 };
});
