import { JsonTooDeepError, UncleanTextError } from "@/lib/errors";
import { MAX_JSON_DEPTH } from "@/lib/session/limits";
import { isCleanText } from "@/lib/session/text";

/** The text rule (lib/session/text.ts) on what a request carries: in JSON, its path and its query. */
export function assertCleanText(text: string, where: string): void {
  if (!isCleanText(text)) throw new UncleanTextError(where);
}

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const U = 0x75;

/** The code unit a `\uXXXX` escape at `i` (its backslash) stands for; NaN when it is not one. */
const escaped = (text: string, i: number) => (text.charCodeAt(i + 1) === U ? Number.parseInt(text.slice(i + 2, i + 6), 16) : Number.NaN);
const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/**
 * Refuses JSON text nested deeper than MAX_JSON_DEPTH, or whose strings break the text rule, before anything
 * parses or walks it: one pass over the characters with a counter, so no depth of input can exhaust the
 * stack. Raw NULs and surrogates cannot be in a string JSON.parse accepts (control characters must be
 * escaped; text decoded from UTF-8 has no surrogates of its own): only `\u` escapes can carry them.
 */
export function assertJsonText(text: string, where = "The request body"): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) {
        const unit = escaped(text, i);
        if (unit === 0 || isLow(unit) || (isHigh(unit) && !isLow(escaped(text, i + 6)))) throw new UncleanTextError(where);
        i += isHigh(unit) ? 11 : 1;
      } else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > MAX_JSON_DEPTH) throw new JsonTooDeepError();
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
    }
  }
}
