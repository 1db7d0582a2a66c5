import type { Json, State, StateDelta } from "./types";

export type Scope = "session" | "app" | "user" | "temp";

export function scopeOf(key: string): Scope {
  if (key.startsWith("app:")) return "app";
  if (key.startsWith("user:")) return "user";
  if (key.startsWith("temp:")) return "temp";
  return "session";
}

/** Splits a delta by scope; `temp:` keys are dropped because they are never persisted. */
export function splitDelta(delta: StateDelta | undefined | null) {
  const parts: Record<"session" | "app" | "user", StateDelta> = { session: {}, app: {}, user: {} };
  for (const [key, value] of Object.entries(delta ?? {})) {
    const scope = scopeOf(key);
    if (scope !== "temp") parts[scope][key] = value === undefined ? null : value;
  }
  return parts;
}

/** Applies a delta in place: each key is set, `null` deletes it. */
export function applyDelta(state: State, delta: StateDelta): State {
  for (const [key, value] of Object.entries(delta)) {
    if (value === null || value === undefined) delete state[key];
    else state[key] = value;
  }
  return state;
}

/** Initial state plus every delta in order, session-scoped keys only (SPEC §2.1 step 2). */
export function replayState(initial: State, deltas: Iterable<StateDelta>): State {
  const state = sessionScoped(initial);
  for (const delta of deltas) applyDelta(state, splitDelta(delta).session);
  return state;
}

function sessionScoped(state: State): State {
  return { ...splitDelta(state).session };
}

export function deepEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bs = b as Json[];
    return a.length === bs.length && a.every((item, i) => deepEqual(item, bs[i]));
  }
  const ao = a as Record<string, Json>;
  const bo = b as Record<string, Json>;
  const keys = Object.keys(ao);
  return keys.length === Object.keys(bo).length && keys.every((k) => k in bo && deepEqual(ao[k], bo[k]));
}
