import { createTokenInput } from "@/lib/accounts/schemas";
import { handler, readInput } from "@/lib/api/handler";
import { createApiToken, listApiTokens } from "@/lib/db/queries";
import { AppError } from "@/lib/errors";

/** Personal API tokens belong to accounts; a guest has its own Bearer token already. */
function requireAccount(kind: string) {
  if (kind === "guest") throw new AppError(403, "account_required", "Sign in to create personal API tokens");
}

export const GET = handler(async ({ userId, kind }) => {
  requireAccount(kind);
  return { data: await listApiTokens(userId) };
});

/** The token is in this answer only; a token cannot mint more tokens (a leaked one could not outlive its revocation). */
export const POST = handler(async ({ request, userId, kind }) => {
  requireAccount(kind);
  if (kind === "token") throw new AppError(403, "forbidden", "Create tokens while signed in, not with another token");
  const input = await readInput(request, createTokenInput);
  return { data: await createApiToken(userId, { name: input.name, expiresInDays: input.expires_in_days }), status: 201 };
});
