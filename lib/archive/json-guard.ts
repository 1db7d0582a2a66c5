/**
 * The input rules of every route (docs/api.md, "Requests") held on a JSON document as it streams in, before
 * its parser sees the bytes: nesting at most `depth` levels, no NUL or unpaired surrogate escaped in a string
 * (unescaped ones are not JSON, or not UTF-8, and the parser refuses them), and no single value — a string, a
 * key, a number — longer than its limit, so one value cannot take the memory a whole file would. One pass over
 * the bytes with a few counters carried from chunk to chunk (JSON's syntax is ASCII: a byte that is part of a
 * multi-byte UTF-8 character is never one of the bytes looked for).
 */
import { type AppError, JsonTooDeepError, UncleanTextError, ValidationError } from "@/lib/errors";

export interface GuardLimits {
  /** Levels a chosen value may nest, counted from it (a request body's limit). */
  depth: number;
  /** Levels of the document above the chosen values. */
  above: number;
  /** Bytes of one value as the file spells it. */
  valueBytes: number;
  /** A longer limit for the string values of one key (a file's base64). */
  longer?: { key: string; bytes: number };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const U = 0x75;
const COLON = 0x3a;
const COMMA = 0x2c;
const isOpen = (b: number) => b === 0x7b || b === 0x5b;
const isClose = (b: number) => b === 0x7d || b === 0x5d;
const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;
/** Keys are compared only up to this many bytes: longer strings are never the key looked for. */
const KEY_BYTES = 32;

const MIB = 1024 * 1024;

export class JsonGuard {
  private offset = 0;
  /** Where the byte being looked at is in the document. */
  private position = 0;
  private depth = 0;
  private inString = false;
  /** 0: none; 1: after a backslash; 2–5: that many characters of `\uXXXX` read. */
  private escape = 0;
  private unit = 0;
  /** A high surrogate's escape just ended: only a low one's may follow. */
  private high = false;
  /** Bytes of the current string, or of the current number or literal outside strings. */
  private length = 0;
  private limit: number;
  /** The current string while it is short enough to be the key looked for; then the last string, and the key before a colon. */
  private text: string | null = null;
  private last: string | null = null;
  private key: string | null = null;

  constructor(private readonly limits: GuardLimits) {
    this.limit = limits.valueBytes;
  }

  /** Checks the next chunk; on a breach, how many of its bytes come before it and the error to answer. */
  scan(chunk: Uint8Array): { before: number; error: AppError } | null {
    for (let i = 0; i < chunk.length; i++) {
      // Inside a string, the bytes up to its next quote or backslash are plain text: counted in one go.
      if (this.inString && this.escape === 0 && !this.high) i = this.plain(chunk, i);
      this.position = this.offset + i;
      const error = this.length > this.limit ? this.tooLong() : i < chunk.length ? this.step(chunk[i]) : null;
      if (error) {
        this.offset += i;
        return { before: i, error };
      }
    }
    this.offset += chunk.length;
    return null;
  }

  /** Skips a string's plain bytes from `i`; returns where its next quote or backslash is (or the chunk's end). */
  private plain(chunk: Uint8Array, i: number): number {
    const quote = chunk.indexOf(QUOTE, i);
    const backslash = chunk.indexOf(BACKSLASH, i);
    const end = Math.min(quote < 0 ? chunk.length : quote, backslash < 0 ? chunk.length : backslash);
    if (this.text !== null) {
      this.text = end - i + this.text.length <= KEY_BYTES ? this.text + String.fromCharCode(...chunk.subarray(i, end)) : null;
    }
    this.length += end - i;
    return end;
  }

  private at() {
    return `at byte ${this.position.toLocaleString("en")}`;
  }

  private tooLong(): AppError {
    const mib = Math.round((this.limit / MIB) * 10) / 10;
    return new ValidationError(`A value in the file is longer than ${mib} MiB, more than one message or file may be (${this.at()})`);
  }

  private step(b: number): AppError | null {
    if (this.inString) return this.inside(b);
    if (b === QUOTE) {
      this.inString = true;
      this.length = 0;
      this.text = "";
      const { longer } = this.limits;
      this.limit = longer && this.key === longer.key ? longer.bytes : this.limits.valueBytes;
      this.key = null;
      return null;
    }
    if (isSpace(b)) {
      this.length = 0;
      return null;
    }
    if (isOpen(b) || isClose(b) || b === COMMA) {
      this.length = 0;
      this.key = null;
      if (isOpen(b) && ++this.depth > this.limits.above + this.limits.depth) {
        return new JsonTooDeepError(`A chat in the file nests JSON deeper than ${this.limits.depth} levels (${this.at()})`);
      }
      if (isClose(b)) this.depth--;
      return null;
    }
    if (b === COLON) {
      this.key = this.last;
      return null;
    }
    this.limit = this.limits.valueBytes;
    return ++this.length > this.limit ? this.tooLong() : null;
  }

  private inside(b: number): AppError | null {
    if (this.escape === 0) {
      if (b === BACKSLASH) {
        this.escape = 1;
        return this.count();
      }
      if (this.high) return this.unclean();
      if (b === QUOTE) {
        this.inString = false;
        this.last = this.text;
        this.length = 0;
        return null;
      }
      if (this.text !== null) this.text = this.text.length < KEY_BYTES ? this.text + String.fromCharCode(b) : null;
      return this.count();
    }
    if (this.escape === 1) {
      this.escape = b === U ? 2 : 0;
      this.unit = 0;
      this.text = null;
      return this.escape === 0 && this.high ? this.unclean() : this.count();
    }
    this.unit = this.unit * 16 + Number.parseInt(String.fromCharCode(b), 16);
    if (++this.escape < 6) return this.count();
    this.escape = 0;
    const unit = this.unit;
    if (this.high) {
      this.high = false;
      if (!isLow(unit)) return this.unclean();
    } else if (unit === 0 || isLow(unit)) return this.unclean();
    else this.high = isHigh(unit);
    return this.count();
  }

  private count(): AppError | null {
    return ++this.length > this.limit ? this.tooLong() : null;
  }

  private unclean(): AppError {
    return new UncleanTextError(`A string in the file (${this.at()})`);
  }
}
