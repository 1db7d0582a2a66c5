import { handler } from "@/lib/api/handler";
import { revokeShare } from "@/lib/db/queries";

/** Revokes a share link: a 404 for everyone from now on. */
export const DELETE = handler<{ id: string; shareId: string }>(async ({ userId, params }) => {
  await revokeShare(userId, params.id, params.shareId);
  return { data: { id: params.shareId }, message: "Share link revoked" };
});
