import "server-only";
import { timingSafeEqual } from "node:crypto";
import { config } from "@/lib/config";
import { AuthError, NotFoundError } from "@/lib/errors";

/**
 * The operator's routes accept only `Authorization: Bearer $RETRACE_ADMIN_TOKEN`; without the variable
 * they do not exist. A user's token never passes, and the operator token opens no user's data.
 */
export function requireOperator(request: Request) {
  const expected = config().adminToken;
  if (!expected) throw new NotFoundError("Not found");
  const given = request.headers.get("authorization")?.match(/^Bearer\s+(.+)$/i)?.[1] ?? "";
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw new AuthError("The operator token is missing or wrong");
}
