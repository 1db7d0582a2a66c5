/** Bodies of the account routes (docs/api.md, "Accounts"). */
import { z } from "zod";

export const createTokenInput = z.strictObject({
  name: z.string().trim().min(1, "name is required").max(100),
  expires_in_days: z.number().int().min(1).max(365).optional(),
});

export const deleteAccountInput = z.strictObject({
  /** The account's email address, typed again: a request that merely carries the cookie cannot delete it. */
  email: z.string().min(1, "type your email address to confirm"),
});

export const inviteInput = z.strictObject({ email: z.email().max(254) });
