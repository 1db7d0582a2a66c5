import "server-only";
/**
 * Who may create an account (RETRACE_SIGNUP), what a password must be, and which guest a sign-in
 * upgrades: the one whose signed token the request carries, never an id the client names.
 */
import { APIError } from "better-auth/api";
import { tokenFrom, verifyToken } from "@/lib/accounts/guest-token";
import { config } from "@/lib/config";
import { hasInvite, TOKEN_PREFIX } from "@/lib/db/queries";
import { isCleanText } from "@/lib/session/text";

export const MIN_PASSWORD = 10;
export const MAX_PASSWORD = 128;

/** The longest name (a person's or a passkey's), email address and picture URL an account keeps (docs/api.md, "Accounts"). */
export const MAX_NAME = 100;
export const MAX_EMAIL = 254;
const MAX_IMAGE = 2048;
/** A passkey's transports ("internal,hybrid", …) are a few short words. */
const MAX_TRANSPORTS = 100;

function requireField(field: string, value: unknown, max: number) {
  if (typeof value !== "string") return; // better-auth's own validation answers that
  if (!isCleanText(value)) {
    throw new APIError("BAD_REQUEST", {
      message: `The ${field} contains a NUL character or an unpaired UTF-16 surrogate.`,
      code: "INVALID_TEXT",
    });
  }
  if (value.length > max)
    throw new APIError("BAD_REQUEST", { message: `The ${field} can be at most ${max} characters.`, code: "FIELD_TOO_LONG" });
}

/** What an account stores about a person, from any source (a form, a passkey sign-up, the company's IdP), within bounds. */
export function requireProfileLimits(profile: { name?: unknown; email?: unknown; image?: unknown }) {
  requireField("name", profile.name, MAX_NAME);
  requireField("email address", profile.email, MAX_EMAIL);
  requireField("picture URL", profile.image, MAX_IMAGE);
}

/** A passkey's name and the transports its browser reports, both stored with it. */
export function requirePasskeyLimits(body: { name?: unknown; response?: { response?: { transports?: unknown } } }) {
  requireField("passkey name", body.name, MAX_NAME);
  const transports = body.response?.response?.transports;
  requireField("passkey's transports", Array.isArray(transports) ? transports.join(",") : undefined, MAX_TRANSPORTS);
}

/** A few of the passwords every breach list starts with; length does the rest of the work (NIST SP 800-63B). */
const COMMON = ["password", "123456", "qwerty", "letmein", "welcome", "iloveyou", "admin", "retrace", "abc123", "monkey", "dragon"];

/** Why a password is too weak, in words a person can act on; null when it is fine. */
export function passwordProblem(password: string, user: { email?: string; name?: string } = {}): string | null {
  if (password.length < MIN_PASSWORD) return `Use at least ${MIN_PASSWORD} characters.`;
  if (password.length > MAX_PASSWORD) return `Use at most ${MAX_PASSWORD} characters.`;
  if (new Set(password).size < 5) return "Use more different characters.";
  const lower = password.toLowerCase();
  if (COMMON.some((word) => lower.includes(word))) return "Avoid common words such as “password”.";
  const personal = [user.email?.split("@")[0], user.name].filter((s): s is string => !!s && s.length >= 4);
  if (personal.some((part) => lower.includes(part.toLowerCase()))) return "Don't use your name or email address in it.";
  return null;
}

export function requireStrongPassword(password: unknown, user: { email?: unknown; name?: unknown }) {
  if (typeof password !== "string") return; // better-auth's own validation answers that
  const problem = passwordProblem(password, { email: String(user.email ?? ""), name: String(user.name ?? "") });
  if (problem) throw new APIError("BAD_REQUEST", { message: `Choose a stronger password: ${problem}`, code: "WEAK_PASSWORD" });
}

/** RETRACE_SIGNUP: open to anyone, by invitation (to the invited address), or closed. */
export async function requireSignupAllowed(email: string) {
  const mode = config().accounts.signup;
  if (mode === "closed") throw new APIError("FORBIDDEN", { message: "New accounts are closed on this server.", code: "SIGNUP_CLOSED" });
  if (mode === "invite" && !(await hasInvite(email))) {
    throw new APIError("FORBIDDEN", {
      message: `This server creates accounts by invitation only, and ${email} has no invitation.`,
      code: "NOT_INVITED",
    });
  }
}

/**
 * The guest a sign-in request comes from: the user id of its verified guest token (cookie, or a Bearer
 * guest token), or null when it carries none. A token that does not verify — forged, tampered with or
 * expired — refuses the sign-in: the upgrade must never move rows on a claim it cannot check.
 */
export async function guestOf(headers: Headers | undefined): Promise<string | null> {
  const found = headers ? tokenFrom(headers) : null;
  if (!found || found.token.startsWith(TOKEN_PREFIX)) return null;
  const verified = await verifyToken(found.token);
  if (!verified) {
    throw new APIError("UNAUTHORIZED", {
      message: "This browser's guest session could not be verified. Reload the page and try again.",
      code: "INVALID_GUEST",
    });
  }
  return verified.userId;
}
