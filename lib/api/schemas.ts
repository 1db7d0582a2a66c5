import { z } from "zod";
import { MIME_TYPE } from "@/lib/session/mime";
import { MAX_CHAT_NAME } from "@/lib/session/names";
import { isAppKey } from "@/lib/session/state";

const name = z.string().trim().min(1, "Name must not be empty").max(MAX_CHAT_NAME, `Name is at most ${MAX_CHAT_NAME} characters`);
const invocationId = z.string().min(1).max(200);
/**
 * A JSON object whose keys are data (`__proto__` is a name like any other: docs/semantics.md, "State scopes"), checked as a record
 * and kept as given: zod builds a record's output by assignment, which drops a `__proto__` key.
 */
function dataRecord<V extends z.ZodType>(key: z.ZodType<string>, value: V) {
  const record = z.record(key, value);
  return z
    .unknown()
    .superRefine((input, ctx) => {
      for (const { message, path } of record.safeParse(input).error?.issues ?? []) ctx.addIssue({ code: "custom", message, path });
    })
    .transform((input) => input as Record<string, z.infer<V>>);
}

const state = dataRecord(z.string().min(1).max(500), z.json());

export const createSessionInput = z
  .strictObject({
    agent: z.string().min(1).max(100).optional(),
    /** kagent's name for the agent, `{namespace}/{agent}` (lib/api/kagent.ts). */
    agent_ref: z.string().min(1).max(200).optional(),
    /** kagent's upsert: an existing session of the caller's, which the body renames. */
    id: z.string().min(1).max(200).optional(),
    name: name.optional(),
    state: state.optional(),
  })
  .refine((v) => v.agent === undefined || v.agent_ref === undefined, { message: "Give agent or agent_ref, not both" });

export const renameSessionInput = z.strictObject({ name });

export const rewindInput = z.strictObject({ rewind_before_invocation_id: invocationId });

export const forkInput = z.strictObject({
  rewind_before_invocation_id: invocationId.optional(),
  name: name.optional(),
});

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export const saveArtifactInput = z
  .strictObject({
    filename: z.string().min(1).max(300),
    mime_type: z.string().max(200).regex(MIME_TYPE, "mime_type must be a media type like text/plain (printable ASCII)").optional(),
    text: z.string().optional(),
    data_base64: z.string().regex(BASE64, "data_base64 is not valid base64").optional(),
  })
  .refine((v) => (v.text === undefined) !== (v.data_base64 === undefined), {
    message: "Give exactly one of text or data_base64",
  });

export const artifactVersion = z
  .string()
  .regex(/^\d{1,9}$/, "version must be a non-negative integer")
  .transform(Number)
  .optional();

export const switchInput = z.strictObject({ invocation_id: invocationId });

/** A turn's name (none: null or blank) and pin; neither removes them. */
export const labelInput = z.strictObject({
  label: z.string().trim().max(100, "label is at most 100 characters").nullable(),
  pinned: z.boolean(),
});

/** `?limit=1..500&before=<cursor>`: one page; neither: everything (docs/api.md, "Paging"). */
const pageFields = {
  limit: z.coerce
    .number({ error: "limit must be a number from 1 to 500" })
    .int("limit must be a whole number")
    .min(1, "limit must be at least 1")
    .max(500, "limit must be at most 500")
    .optional(),
  before: z.string().min(1, "before must be a cursor from next_before").max(100).optional(),
};
const beforeNeedsLimit = [
  (q: { limit?: number; before?: string }) => q.before === undefined || q.limit !== undefined,
  { message: "before needs a limit" },
] as const;

/** The page a listing query asks for (lib/db/paging.ts `PageRequest`), if any. */
export const pageRequestOf = (q: { limit?: number; before?: string }) =>
  q.limit === undefined ? undefined : { limit: q.limit, before: q.before };

export const sessionsQuery = z.object(pageFields).refine(...beforeNeedsLimit);
export const tasksQuery = z
  .object({ ...pageFields, include_rewound: z.enum(["true", "false"]).default("false") })
  .refine(...beforeNeedsLimit);
export const eventsQuery = z.object({ ...pageFields, view: z.enum(["all", "effective"]).default("all") }).refine(...beforeNeedsLimit);

/** `GET /api/search`: words to find, a page at a time (newest first), rewound messages only when asked. */
export const searchQuery = z.object({
  q: z.string({ error: "q is required: the words to search for" }).max(500, "q is at most 500 characters"),
  include_rewound: z.enum(["true", "false"]).default("false"),
  limit: pageFields.limit.unwrap().max(100, "limit must be at most 100").default(20),
  before: pageFields.before,
});

/** Two turns of a chat to compare (`GET …/versions/compare?a=&b=`). */
const turnId = (name: string) =>
  z
    .string({ error: `${name} is required: a turn's invocation id` })
    .min(1)
    .max(200);
export const compareQuery = z.object({ a: turnId("a"), b: turnId("b") });

/** The operator's app-wide state: `{"app:key": value | null}`; null deletes. */
export const appStateInput = dataRecord(z.string().min(5).max(500), z.json())
  .refine((state) => Object.keys(state).length > 0, { message: "Give at least one app: key" })
  .refine((state) => Object.keys(state).every(isAppKey), { message: "Every key must start with app:" });

export const exportQuery = z.strictObject({ format: z.enum(["json", "markdown"]).default("json") });

export const importQuery = z.strictObject({ agent: z.string().min(1).max(100).optional() });

export const shareInput = z.strictObject({
  include_tools: z.boolean().default(false),
  include_files: z.boolean().default(false),
  /** kagent's share dialog asks for a read-only link; Retrace's links are never anything else. */
  read_only: z.literal(true, "Retrace's share links are read-only").optional(),
});

/** 256 bits in base64url (lib/db/shares.ts); anything else is no link. */
export const shareToken = z.string().regex(/^[A-Za-z0-9_-]{43}$/, "Not a share link");

/** `POST /api/uploads?filename=…`: the file's name (its bytes are the body). */
export const uploadQuery = z.object({
  filename: z
    .string({ error: "filename is required: the file's name" })
    .min(1, "filename must not be empty")
    .max(255, "filename is at most 255 characters"),
});
