import type { ActionResult } from "@/lib/api/action";

/** Turns a server action's `{ok:false}` into a thrown error carrying the server's message. */
export async function unwrapAction<T>(result: Promise<ActionResult<T>>): Promise<T> {
  const outcome = await result;
  if (!outcome.ok) throw new Error(outcome.error);
  return outcome.data;
}
