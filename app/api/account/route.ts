import { OIDC_PROVIDER } from "@/lib/accounts/better-auth";
import { AUTH_COOKIE } from "@/lib/accounts/guest-token";
import { forgetAccount } from "@/lib/accounts/identity";
import { deleteAccountInput } from "@/lib/accounts/schemas";
import { handler, readInput } from "@/lib/api/handler";
import { config } from "@/lib/config";
import { accountProfile, deleteAccount } from "@/lib/db/queries";
import { AppError } from "@/lib/errors";

/** Who the caller is, and how people sign in here (what the sign-in dialog offers). */
export const GET = handler(async ({ userId, kind }) => {
  const profile = kind === "guest" ? null : await accountProfile(userId);
  const { signup, oidc } = config().accounts;
  return {
    data: {
      user_id: userId,
      kind,
      name: profile?.name ?? null,
      email: profile?.email ?? null,
      sign_in: { password: true, passkey: true, oidc: oidc ? { provider: OIDC_PROVIDER, name: oidc.name } : null, signup },
    },
  };
});

const SIGNED_OUT = [
  `${AUTH_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`,
  ...["retrace.session_token", "retrace.session_data"].flatMap((name) => [
    `${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`,
    `__Secure-${name}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax`,
  ]),
];

/**
 * Deletes the caller's account and everything it owns. Only a signed-in person may (not a guest, not an
 * API token: a leaked token must not be able to destroy the account), confirming with the account's email.
 */
export const DELETE = handler(async ({ request, userId, kind }) => {
  if (kind !== "account" && kind !== "proxy") {
    throw new AppError(403, "forbidden", "Only a signed-in account can be deleted, and not with an API token");
  }
  const { email } = await readInput(request, deleteAccountInput);
  const profile = await accountProfile(userId);
  if (!profile || profile.email !== email.trim().toLowerCase()) {
    throw new AppError(400, "confirmation_mismatch", "Type the account's email address to confirm");
  }
  await deleteAccount(userId);
  forgetAccount(userId);
  const response = Response.json({ data: { id: userId }, message: "Account deleted" });
  for (const cookie of SIGNED_OUT) response.headers.append("set-cookie", cookie);
  return response;
});
