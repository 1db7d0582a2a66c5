import { handler } from "@/lib/api/handler";
import { shareToken } from "@/lib/api/schemas";
import { continueShared } from "@/lib/db/queries";
import { AppError, NotFoundError } from "@/lib/errors";

/** "Continue from here": the shared version as a new chat of the signed-in caller's. */
export const POST = handler<{ token: string }>(async ({ userId, kind, params }) => {
  if (!shareToken.safeParse(params.token).success) throw new NotFoundError("This link does not exist or was revoked");
  if (kind === "guest") throw new AppError(403, "sign_in_required", "Sign in to continue this chat in your own account");
  return { data: await continueShared(params.token, userId), status: 201 };
});
