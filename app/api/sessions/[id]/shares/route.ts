import { handler, ownOrigin, readInput } from "@/lib/api/handler";
import { shareInput } from "@/lib/api/schemas";
import { createShare, listShares } from "@/lib/db/queries";

type Params = { id: string };

/** Every link is read-only; kagent's share dialog reads that as `read_only`. */
const READ_ONLY = { read_only: true } as const;

/** The chat's live share links (their tokens are never shown again). */
export const GET = handler<Params>(async ({ userId, params }) => ({
  data: (await listShares(userId, params.id)).map((share) => ({ ...share, ...READ_ONLY })),
}));

/** A read-only link to the chat as it is now: the only answer that holds the token. */
export const POST = handler<Params>(async ({ request, userId, params }) => {
  const input = await readInput(request, shareInput);
  const { share, token } = await createShare(userId, params.id, { includeTools: input.include_tools, includeFiles: input.include_files });
  return { data: { ...share, ...READ_ONLY, token, url: `${ownOrigin(request)}/s/${token}` }, status: 201 };
});
