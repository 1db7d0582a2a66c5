/** The browser's better-auth client (same origin, /api/auth), with passkeys, and its errors in words a person can act on. */
import { passkeyClient } from "@better-auth/passkey/client";
import { createAuthClient } from "better-auth/client";

export const authClient = createAuthClient({ basePath: "/api/auth", plugins: [passkeyClient()] });

interface AuthFailure {
  code?: string;
  message?: string;
  /** The app's own refusals in front of better-auth (413, 415, `invalid_text`) carry `{error, code}`. */
  error?: string;
  status?: number;
}

const MESSAGES: Record<string, string> = {
  INVALID_EMAIL_OR_PASSWORD: "That email and password don't match an account.",
  USER_ALREADY_EXISTS: "An account with this email already exists. Sign in instead.",
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: "An account with this email already exists. Sign in instead.",
  PASSWORD_TOO_SHORT: "Use at least 10 characters for your password.",
  INVALID_EMAIL: "Enter a valid email address.",
  PASSKEY_NOT_FOUND: "This passkey isn't registered here. Sign in another way, then add it from Devices.",
  AUTH_CANCELLED: "The passkey prompt was closed before it finished.",
  ERROR_CEREMONY_ABORTED: "The passkey prompt was closed before it finished.",
  // WebAuthn refuses IP addresses and plain-HTTP names other than localhost as relying parties.
  ERROR_INVALID_DOMAIN:
    "Passkeys need a secure address: open Retrace at localhost or over HTTPS (an IP address won't do), or use your email and password.",
  account_not_linked: "An account with this email already exists. Sign in with its password or passkey instead.",
  signup_disabled: "New accounts are closed on this server.",
  access_denied: "The sign-in was cancelled at your organisation's sign-in page.",
  SESSION_BUSY: "A reply is still running in this chat. Wait for it to finish (or stop it), then try again.",
};

/** A better-auth failure (or an OAuth error code from a redirect) as a sentence. */
export function authErrorMessage(error: AuthFailure | string | null | undefined): string {
  if (!error) return "Something went wrong. Try again.";
  if (typeof error === "string") return MESSAGES[error] ?? `Signing in failed (${error.replaceAll("_", " ")}).`;
  if (error.status === 429) return "Too many attempts. Wait a minute, then try again.";
  return (error.code && MESSAGES[error.code]) || error.message || error.error || "Something went wrong. Try again.";
}
