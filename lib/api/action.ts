import "server-only";
import type { z } from "zod";
import { currentUserId } from "@/lib/accounts/identity";
import { AppError, AuthError } from "@/lib/errors";
import { parse } from "./handler";

export type ActionResult<T> = { ok: true; data: T } | { ok: false; error: string; code: string };

/**
 * A server action that reads like a route handler: validate → authenticate → run, with failures returned
 * (not thrown) so the client can show the server's message. Every caller refetches what it changed through
 * React Query (components/chat/queries.ts); an action that makes a rendered page stale revalidates it too.
 */
export function validatedAction<S extends z.ZodType, T>(schema: S, run: (input: z.infer<S>, userId: string) => T | Promise<T>) {
  return async (input: z.input<S>): Promise<ActionResult<T>> => {
    try {
      const parsed = parse(schema, input);
      const userId = await currentUserId();
      if (!userId) throw new AuthError();
      const data = await run(parsed, userId);
      return { ok: true, data };
    } catch (error) {
      if (error instanceof AppError) return { ok: false, error: error.message, code: error.code };
      console.error(error);
      return { ok: false, error: "Something went wrong on the server", code: "internal" };
    }
  };
}
