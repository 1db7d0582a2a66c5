import { randomUUID } from "node:crypto";
import { z } from "zod";
import { issuesText, ValidationError } from "../errors";
import type { AdkEvent } from "./types";

/** Values under these keys are user data: their keys are kept exactly as given. */
const OPAQUE = new Set(["state_delta", "artifact_delta", "args", "response", "custom_metadata"]);

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function toSnake(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toSnake);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => {
      const sk = snake(k);
      return [sk, OPAQUE.has(sk) ? v : toSnake(v)];
    }),
  );
}

const partSchema = z.looseObject({
  text: z.string().optional(),
  function_call: z.looseObject({ name: z.string(), id: z.string().optional() }).optional(),
  function_response: z.looseObject({ name: z.string(), id: z.string().optional() }).optional(),
  inline_data: z.looseObject({ mime_type: z.string(), data: z.string() }).optional(),
});

const jsonRecord = z.record(z.string(), z.json());

const adkEventSchema = z.looseObject({
  id: z.string().min(1).max(200).optional(),
  invocation_id: z.string().min(1).max(200),
  author: z.string().min(1).max(200),
  timestamp: z.number().finite().optional(),
  content: z.looseObject({ role: z.string().optional(), parts: z.array(partSchema).optional() }).nullish(),
  actions: z
    .looseObject({
      state_delta: jsonRecord.nullish(),
      artifact_delta: z.record(z.string().min(1), z.int().nonnegative()).nullish(),
      rewind_before_invocation_id: z.string().min(1).nullish(),
    })
    .nullish(),
  partial: z.boolean().nullish(),
  turn_complete: z.boolean().nullish(),
});

/** kagent's wire form: the event JSON as a string under `data`. */
const kagentEnvelope = z.object({ id: z.string().optional(), data: z.string() });

/**
 * Accepts an ADK event in snake_case or camelCase, or kagent's `{id, data}` envelope, and returns
 * the snake_case event with `id` and `timestamp` filled in.
 */
export function normalizeEvent(input: unknown): AdkEvent {
  let raw = input;
  let outerId: string | undefined;
  const envelope = kagentEnvelope.safeParse(input);
  if (envelope.success) {
    try {
      raw = JSON.parse(envelope.data.data);
      outerId = envelope.data.id;
    } catch {
      throw new ValidationError("`data` is not valid event JSON");
    }
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new ValidationError("An event must be a JSON object");
  }
  const snaked = toSnake(raw);
  const parsed = adkEventSchema.safeParse(snaked);
  if (!parsed.success) throw new ValidationError(issuesText(parsed.error));
  // The event as given, not zod's copy: a copy drops `__proto__` keys, which are data in deltas and arguments.
  const event = snaked as AdkEvent;
  return {
    ...event,
    // kagent's envelope carries the event's id outside its JSON too.
    id: event.id ?? outerId ?? randomUUID(),
    timestamp: event.timestamp ?? Date.now() / 1000,
    actions: { ...event.actions, state_delta: event.actions?.state_delta ?? {}, artifact_delta: event.actions?.artifact_delta ?? {} },
  };
}
