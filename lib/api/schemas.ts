import { z } from "zod";

const name = z.string().trim().min(1, "Name must not be empty").max(200, "Name is at most 200 characters");
const invocationId = z.string().min(1).max(200);
const state = z.record(z.string().min(1).max(500), z.json());

export const createSessionInput = z.strictObject({
  agent: z.string().min(1).max(100).optional(),
  name: name.optional(),
  state: state.optional(),
});

export const renameSessionInput = z.strictObject({ name });

export const rewindInput = z.strictObject({ rewind_before_invocation_id: invocationId });

export const forkInput = z.strictObject({
  rewind_before_invocation_id: invocationId.optional(),
  name: name.optional(),
});

/** `type/subtype` with optional `; name=value` parameters, printable ASCII only: safe as a header value. */
const MIME_TYPE =
  /^[\w!#$%&'*+.^`|~-]+\/[\w!#$%&'*+.^`|~-]+(?:[ \t]*;[ \t]*[\w!#$%&'*+.^`|~-]+=(?:[\w!#$%&'*+.^`|~-]+|"(?:[\t\x20\x21\x23-\x5b\x5d-\x7e]|\\[\t\x20-\x7e])*"))*$/;

export const isMimeType = (value: string) => MIME_TYPE.test(value);

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

export const eventsView = z.enum(["all", "effective"]).default("all");
export const artifactVersion = z
  .string()
  .regex(/^\d{1,9}$/, "version must be a non-negative integer")
  .transform(Number)
  .optional();
