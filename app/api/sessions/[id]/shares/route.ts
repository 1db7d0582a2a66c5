import { handler, ownOrigin, readInput } from "@/lib/api/handler";
import { shareInput } from "@/lib/api/schemas";
import { createShare, listShares } from "@/lib/db/shares";

type Params = { id: string };

/** The chat's live share links (their tokens are never shown again). */
export const GET = handler<Params>(async ({ userId, params }) => ({ data: await listShares(userId, params.id) }));

/** A read-only link to the chat as it is now: the only answer that holds the token. */
export const POST = handler<Params>(async ({ request, userId, params }) => {
  const input = await readInput(request, shareInput);
  const { share, token } = await createShare(userId, params.id, { includeTools: input.include_tools, includeFiles: input.include_files });
  return { data: { ...share, token, url: `${ownOrigin(request)}/s/${token}` }, status: 201 };
});
