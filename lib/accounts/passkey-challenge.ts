import "server-only";
/**
 * A passkey ceremony's challenge travels in a signed cookie, not in the database: asking for options (an
 * anonymous sign-up's or sign-in's too) writes no row, however often it is asked. The row the passkey plugin
 * consumes is written back only when the browser answers, just before the plugin reads it (and removes it).
 */
import type { GenericEndpointContext } from "@better-auth/core";

/** The passkey plugin's own cookie, holding the identifier its verify step consumes (its default name). */
const PLUGIN_COOKIE = "better-auth-passkey";
const CHALLENGE_COOKIE = "passkey_challenge";

interface Saved {
  value: string;
  expiresAt: number;
}

const encode = (saved: Saved) => Buffer.from(JSON.stringify(saved)).toString("base64url");

function decode(text: string): Saved | null {
  try {
    const saved = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as Partial<Saved>;
    return typeof saved.value === "string" && typeof saved.expiresAt === "number"
      ? { value: saved.value, expiresAt: saved.expiresAt }
      : null;
  } catch {
    return null;
  }
}

/**
 * databaseHooks.verification.create.before: a challenge the passkey plugin stores while generating options
 * goes into the signed cookie instead (false: nothing is written). Other verification rows are written as usual.
 */
export async function keepChallengeInCookie(
  verification: { value: string; expiresAt: Date },
  ctx: GenericEndpointContext | null,
): Promise<false | undefined> {
  if (!ctx?.path.startsWith("/passkey/generate-")) return undefined;
  const cookie = ctx.context.createAuthCookie(CHALLENGE_COOKIE);
  const expiresAt = new Date(verification.expiresAt).getTime();
  const maxAge = Math.max(1, Math.ceil((expiresAt - Date.now()) / 1000));
  await ctx.setSignedCookie(cookie.name, encode({ value: verification.value, expiresAt }), ctx.context.secret, {
    ...cookie.attributes,
    maxAge,
  });
  return false;
}

/** Before a passkey verify step: the challenge the browser carries, back as the row the plugin consumes. */
export async function restoreChallenge(ctx: GenericEndpointContext): Promise<void> {
  const cookie = ctx.context.createAuthCookie(CHALLENGE_COOKIE);
  const text = await ctx.getSignedCookie(cookie.name, ctx.context.secret);
  const identifier = await ctx.getSignedCookie(ctx.context.createAuthCookie(PLUGIN_COOKIE).name, ctx.context.secret);
  const saved = text ? decode(text) : null;
  ctx.setCookie(cookie.name, "", { ...cookie.attributes, maxAge: 0 });
  // Without both (or past its time) the plugin finds no challenge and answers so itself.
  if (!saved || !identifier || saved.expiresAt <= Date.now()) return;
  await ctx.context.internalAdapter.createVerificationValue({ identifier, value: saved.value, expiresAt: new Date(saved.expiresAt) });
}
