import { handler } from "@/lib/api/handler";
import { revokeApiToken } from "@/lib/db/queries";

/** Revokes one of the caller's tokens; another account's is a 404. */
export const DELETE = handler<{ id: string }>(async ({ userId, params }) => {
  await revokeApiToken(userId, params.id);
  return { data: { id: params.id }, message: "Token revoked" };
});
