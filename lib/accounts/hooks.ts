import "server-only";
/**
 * Retrace's rules around better-auth's routes and rows: passwords, profile and passkey limits, who may sign up,
 * and the guest a sign-in upgrades — checked before anything is written, so a refused sign-up leaves nothing
 * behind (docs/api.md, "Accounts").
 */
import type { GenericEndpointContext } from "@better-auth/core";
import { defineRequestState, hasRequestState } from "@better-auth/core/context";
import type { BetterAuthOptions } from "better-auth";
import { APIError, createAuthMiddleware } from "better-auth/api";
import { config } from "@/lib/config";
import { discardSignUp, ensureAccountUser, mergeGuest, requireMergeable, spendInvite } from "@/lib/db/queries";
import { AppError } from "@/lib/errors";
import { keepChallengeInCookie, restoreChallenge } from "./passkey-challenge";
import { guestOf, requirePasskeyLimits, requireProfileLimits, requireSignupAllowed, requireStrongPassword } from "./policy";

/** A store refusal inside a better-auth hook, as the status and message better-auth answers with. */
function toApiError(error: unknown): unknown {
  if (!(error instanceof AppError)) return error;
  return new APIError(error.status === 409 ? "CONFLICT" : "BAD_REQUEST", { message: error.message, code: error.code.toUpperCase() });
}

/** The guest a sign-in would move, refused (with nothing written) if it cannot move now. */
async function requireGuestMovable(headers: Headers | undefined, accountId?: string) {
  const guest = await guestOf(headers);
  if (!guest || guest === accountId) return;
  await requireMergeable(guest).catch((error) => {
    throw toApiError(error);
  });
}

/** The account this request's sign-up created, if any: it does not outlive a refused merge. */
const createdHere = defineRequestState<string | null>(() => null);

/**
 * A sign-in refused once its account or session exists (a reply started in the guest's chats after the checks):
 * the account this request's sign-up made goes, or else the session; the refusal stands.
 */
async function refuseSignIn(
  session: { userId: string; token: string },
  ctx: GenericEndpointContext | null,
  error: unknown,
): Promise<never> {
  if ((await hasRequestState()) && (await createdHere.get()) === session.userId) await discardSignUp(session.userId);
  else await ctx?.context.internalAdapter.deleteSession(session.token);
  throw error;
}

export const beforeHook = createAuthMiddleware(async (ctx) => {
  const body = ctx.body ?? {};
  switch (ctx.path) {
    case "/sign-up/email":
      requireProfileLimits(body);
      requireStrongPassword(body.password, body);
      break;
    case "/update-user":
      requireProfileLimits(body);
      break;
    case "/change-password":
      requireStrongPassword(body.newPassword, ctx.context.session?.user ?? {});
      break;
    case "/passkey/update-passkey":
      requirePasskeyLimits(body);
      break;
    case "/passkey/verify-registration":
      requirePasskeyLimits(body);
      await restoreChallenge(ctx);
      break;
    case "/passkey/verify-authentication":
      await restoreChallenge(ctx);
      break;
  }
});

export const databaseHooks: BetterAuthOptions["databaseHooks"] = {
  user: {
    create: {
      // Every way an account is made (a form, a passkey, the IdP) passes here before its row exists.
      before: async (user, ctx) => {
        requireProfileLimits(user);
        await requireSignupAllowed(user.email);
        await requireGuestMovable(ctx?.headers);
        // Its id is known before the row exists (better-auth runs the after-hooks only once the sign-up has finished).
        const id = crypto.randomUUID();
        if (await hasRequestState()) await createdHere.set(id);
        return { data: { id } };
      },
      after: async (user) => {
        await ensureAccountUser(user.id);
        if (config().accounts.signup === "invite") await spendInvite(user.email);
      },
    },
    update: {
      before: async (user) => {
        requireProfileLimits(user);
      },
    },
  },
  session: {
    create: {
      // Checked (again) before the session exists: a sign-in to an existing account is checked here only.
      before: async (session, ctx) => {
        await requireGuestMovable(ctx?.headers, session.userId).catch((error) => refuseSignIn(session, ctx, error));
      },
      after: async (session, ctx) => {
        const guest = await guestOf(ctx?.headers);
        if (guest) await mergeGuest(guest, session.userId).catch((error) => refuseSignIn(session, ctx, toApiError(error)));
      },
    },
  },
  verification: { create: { before: keepChallengeInCookie } },
};
