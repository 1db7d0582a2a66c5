import { AppError } from "@/lib/errors";

/** How deeply objects and arrays may nest in any JSON we accept (docs/api.md, "Requests"). */
export const MAX_JSON_DEPTH = 64;

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Refuses JSON text nested deeper than MAX_JSON_DEPTH before anything parses or walks it: one pass
 * over the characters with a counter, so no depth of input can exhaust the stack.
 */
export function assertJsonDepth(text: string): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > MAX_JSON_DEPTH) {
        throw new AppError(400, "json_too_deep", `JSON is nested deeper than ${MAX_JSON_DEPTH} levels`);
      }
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
    }
  }
}
