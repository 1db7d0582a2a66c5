import type { Json, State, StateDelta } from "./types";

/** Key prefixes of the ADK state scopes (docs/semantics.md, "State scopes"). */
const APP_PREFIX = "app:";
export const USER_PREFIX = "user:";
const TEMP_PREFIX = "temp:";

export type Scope = "session" | "app" | "user" | "temp";

export function scopeOf(key: string): Scope {
  if (key.startsWith(APP_PREFIX)) return "app";
  if (key.startsWith(USER_PREFIX)) return "user";
  if (key.startsWith(TEMP_PREFIX)) return "temp";
  return "session";
}

export const isAppKey = (key: string) => scopeOf(key) === "app";

/**
 * State keys are data: `constructor`, `toString` or `__proto__` must behave like any other name. So
 * every state object the domain builds has no prototype, and membership is `Object.hasOwn`.
 */
export function emptyState(): State {
  return Object.create(null);
}

/** A copy of `source` without a prototype (JSON.parse and object literals give one). */
export function stateOf(source: Record<string, Json> | null | undefined): State {
  return Object.assign(emptyState(), source);
}

export const parseState = (json: string): State => stateOf(JSON.parse(json));

export const hasKey = (state: State, key: string) => Object.hasOwn(state, key);

/** Splits a delta by scope; `temp:` keys are dropped because they are never persisted. */
export function splitDelta(delta: StateDelta | undefined | null) {
  const parts: Record<"session" | "app" | "user", StateDelta> = { session: emptyState(), app: emptyState(), user: emptyState() };
  for (const [key, value] of Object.entries(delta ?? {})) {
    const scope = scopeOf(key);
    if (scope !== "temp") parts[scope][key] = value === undefined ? null : value;
  }
  return parts;
}

/** Applies a delta in place: each key is set, `null` deletes it. `state` must come from emptyState/stateOf. */
export function applyDelta(state: State, delta: StateDelta): State {
  for (const [key, value] of Object.entries(delta)) {
    if (value === null || value === undefined) delete state[key];
    else state[key] = value;
  }
  return state;
}

/** Initial state plus every delta in order, session-scoped keys only (rewind, step 2). */
export function replayState(initial: State, deltas: Iterable<StateDelta>): State {
  const state = splitDelta(initial).session;
  for (const delta of deltas) applyDelta(state, splitDelta(delta).session);
  return state;
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
  return keys.length === Object.keys(bo).length && keys.every((k) => Object.hasOwn(bo, k) && deepEqual(ao[k], bo[k]));
}
