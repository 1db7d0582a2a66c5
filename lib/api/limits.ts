/** The request body limit (lib/session/limits.ts), where next.config.ts reads it. */
export { MAX_BODY_BYTES } from "../session/limits";
