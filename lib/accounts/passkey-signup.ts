import "server-only";
/**
 * Passkey-first sign-up: someone without an account names themselves (name and email, sent as the
 * registration's `context`), registers a passkey, and the account is created once the passkey verifies.
 * Signed-in users add passkeys to their own account through the same endpoints.
 */
import type { PasskeyOptions } from "@better-auth/passkey";
import { APIError } from "better-auth/api";
import { z } from "zod";
import { MAX_EMAIL, MAX_NAME, requireSignupAllowed } from "./policy";

const signup = z.object({ name: z.string().trim().min(1).max(MAX_NAME), email: z.email().max(MAX_EMAIL) });

function parseSignup(context: string | null | undefined) {
  let value: unknown;
  try {
    value = JSON.parse(context ?? "");
  } catch {
    value = undefined;
  }
  const parsed = signup.safeParse(value);
  if (!parsed.success) throw new APIError("BAD_REQUEST", { message: "Enter your name and a valid email address.", code: "INVALID_SIGNUP" });
  return { name: parsed.data.name, email: parsed.data.email.toLowerCase() };
}

type Registration = NonNullable<PasskeyOptions["registration"]>;
type RegistrationContext = Parameters<NonNullable<Registration["resolveUser"]>>[0]["ctx"];

async function emailTaken(ctx: RegistrationContext, email: string) {
  return (await ctx.context.internalAdapter.findUserByEmail(email)) !== null;
}

export const passkeySignup: Registration = {
  requireSession: false,
  /**
   * Before the ceremony: refuse early what would fail after it for any address (a malformed one, closed sign-up).
   * Whether the address is taken is not told here: the options read the same either way (the sign-up says so).
   */
  async resolveUser({ context }) {
    const { name, email } = parseSignup(context);
    await requireSignupAllowed(email);
    return { id: crypto.randomUUID(), name: email, displayName: name };
  },
  /** After it: the account the passkey belongs to (a signed-in user's own, or a new one). */
  async afterVerification({ ctx, context }) {
    if (ctx.context.session) return;
    const { name, email } = parseSignup(context);
    if (await emailTaken(ctx, email)) {
      throw new APIError("BAD_REQUEST", { message: "An account with this email already exists. Sign in instead.", code: "EMAIL_TAKEN" });
    }
    const user = await ctx.context.internalAdapter.createUser({ name, email, emailVerified: false }, { method: "passkey" });
    return { userId: user.id };
  },
};
