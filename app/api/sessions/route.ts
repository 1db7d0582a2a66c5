import { listAgents } from "@/lib/agent/registry";
import { handler, listing, readInput, readQuery } from "@/lib/api/handler";
import { agentOfRef } from "@/lib/api/kagent";
import { createSessionInput, pageRequestOf, sessionsQuery } from "@/lib/api/schemas";
import { createSession, listSessions, renameSession } from "@/lib/db/queries";
import { InvalidReferenceError, ValidationError } from "@/lib/errors";

export const GET = handler(async ({ request, userId }) => {
  const page = pageRequestOf(readQuery(request, sessionsQuery));
  return listing(await listSessions(userId, page), page !== undefined);
});

/** A new chat; or, as kagent's UI renames one (posting it again with its id), the caller's chat `id` renamed. */
export const POST = handler(async ({ request, userId }) => {
  const { agent_ref, id, ...input } = await readInput(request, createSessionInput);
  const agent = agent_ref === undefined ? input.agent : agentOfRef(agent_ref);
  if (agent && !listAgents().some((a) => a.name === agent)) throw new InvalidReferenceError(`Unknown agent: ${agent_ref ?? agent}`);
  if (id !== undefined) {
    if (input.name === undefined || input.state !== undefined)
      throw new ValidationError("A session's id renames it: give its name, and no state");
    return { data: await renameSession(userId, id, input.name, agent) };
  }
  return { data: await createSession(userId, { ...input, agent }), status: 201 };
});
