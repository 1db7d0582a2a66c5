/**
 * The words search sees (docs/semantics.md, "Search"): one tokenizer, in TypeScript, for both dialects' indexes,
 * for queries and for highlighting, so SQLite and PostgreSQL find exactly the same messages and a snippet
 * highlights exactly what matched. Neither database tokenizes: they store and intersect these words.
 */
import type { AdkEvent } from "./types";

/** Words of a message past this many characters are not indexed (a pasted log stays a bounded index row). */
const MAX_INDEXED_CHARS = 100_000;
/** Longer words are cut to this many characters, in the index and in queries alike. */
const MAX_WORD = 64;
/** A query of more words is refused (400). */
export const MAX_QUERY_WORDS = 16;
/**
 * Each word is also indexed under its first 3, 4 and 5 characters (`con_`, `conf_`, `confi_`), so the last
 * word of a query matches as a prefix through one exact index lookup on both dialects.
 */
const PREFIX_LENGTHS = [3, 4, 5];
const MIN_PREFIX = PREFIX_LENGTHS[0];
const MAX_PREFIX = PREFIX_LENGTHS.at(-1) as number;

/** A run of letters, digits and marks, from where it is matched. */
const RUN = /[\p{L}\p{N}\p{M}]+/uy;
const NOT_WORD = /[^\p{L}\p{N}\p{M}]+/u;
/** Han and kana are written without spaces: each character is a word of its own. */
const IDEOGRAPHS = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]|[^\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]+/gu;
const IDEOGRAPH = /^[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]$/u;
/** Accents on Latin, Greek and Cyrillic letters (café = cafe); other scripts keep their marks, which spell. */
const ACCENT = /(?<=[\p{sc=Latin}\p{sc=Greek}\p{sc=Cyrillic}]\p{M}*)\p{M}/gu;

const fold = (text: string) => text.toLowerCase().normalize("NFKD").replace(ACCENT, "").normalize("NFC");
const cut = (word: string) => (word.length > MAX_WORD ? [...word].slice(0, MAX_WORD).join("") : word);

/** A word of a text and where it came from there (a run of letters, digits and marks, or one ideograph). */
interface Word {
  word: string;
  start: number;
  end: number;
}

const SURROGATE = /[\uD800-\uDFFF]/;
const HIGH_SURROGATE = /[\uD800-\uDBFF]/;

const isAsciiWord = (unit: number) => (unit >= 48 && unit <= 57) || (unit >= 65 && unit <= 90) || (unit >= 97 && unit <= 122);

/** The words of `text`, in order, with their places in it. */
export function wordsOf(text: string, max = MAX_INDEXED_CHARS): Word[] {
  const words: Word[] = [];
  const source = text.slice(0, max);
  // Runs of ASCII letters and digits (most of them) are read unit by unit and fold to themselves in lower
  // case; a run with any other character is matched by RUN and folded.
  for (let at = 0; at < source.length; ) {
    const unit = source.charCodeAt(at);
    if (unit < 128 && !isAsciiWord(unit)) {
      at += 1;
      continue;
    }
    let end = at;
    while (end < source.length && isAsciiWord(source.charCodeAt(end))) end += 1;
    if (end > at && (end === source.length || source.charCodeAt(end) < 128)) {
      words.push({ word: cut(source.slice(at, end).toLowerCase()), start: at, end });
      at = end;
      continue;
    }
    RUN.lastIndex = at;
    const run = RUN.exec(source);
    if (!run) {
      at += unit >= 0xd800 && unit <= 0xdbff ? 2 : 1;
      continue;
    }
    words.push(...wordsOfRun(run[0], at));
    at += run[0].length;
  }
  return words;
}

/** The words of a run of letters, digits and marks that starts at `at`. */
export function wordsOfRun(run: string, at: number): Word[] {
  const words: Word[] = [];
  for (const [part] of run.matchAll(IDEOGRAPHS)) {
    const end = at + part.length;
    // Folding may turn a letter into a letter and a sign (⒈ → 1.): split there too.
    for (const word of (IDEOGRAPH.test(part) ? part : fold(part)).split(NOT_WORD)) {
      if (word) words.push({ word: cut(word), start: at, end });
    }
    at = end;
  }
  return words;
}

/** The text search sees in an event: its text parts (not tool calls, results or files; not a model's thoughts). */
export function searchableText(event: Pick<AdkEvent, "content" | "partial">): string {
  if (event.partial) return "";
  return (event.content?.parts ?? [])
    .filter((p) => typeof p.text === "string" && !p.thought)
    .map((p) => p.text)
    .join("\n");
}

/** The index entry of a prefix: distinct from any word, which never holds `_`. */
const prefixEntry = (prefix: string) => `${prefix}_`;

/** What the index holds for a text: each distinct word and its prefixes, space-separated; null when it has no words. */
export function indexedWords(text: string): string | null {
  const entries = new Set<string>();
  for (const { word } of wordsOf(text)) {
    if (entries.has(word)) continue; // and so are its prefixes
    entries.add(word);
    // By code points: a word of the BMP alone, most of them, by its units.
    const points = SURROGATE.test(word) ? [...word] : null;
    const length = points?.length ?? word.length;
    for (const n of PREFIX_LENGTHS) if (length > n) entries.add(prefixEntry(points ? points.slice(0, n).join("") : word.slice(0, n)));
  }
  return entries.size ? [...entries].join(" ") : null;
}

/** A query as the store runs it: every word must be in the message; the last one may be the start of a word. */
export interface SearchQuery {
  words: string[];
  /** The last word, matched as a prefix (it has at least MIN_PREFIX characters); absent from `words`. */
  prefix: string | null;
}

/** Parses what a person typed: only words count, so no input is query syntax to either database. Null: no word in it. */
export function parseQuery(text: string): SearchQuery | null {
  const words = [...new Set(wordsOf(text).map((w) => w.word))];
  if (words.length === 0) return null;
  const last = words.at(-1) as string;
  const prefix = [...last].length >= MIN_PREFIX && !IDEOGRAPH.test(last) ? last : null;
  return { words: prefix ? words.slice(0, -1) : words, prefix };
}

/**
 * The index entries a message must hold to match: its words, and for the prefix the entry of its first
 * MAX_PREFIX characters, or either it or the word itself when shorter. `startsWith`: a prefix longer than
 * MAX_PREFIX, which the message must also hold as the start of a word (both databases look it up as such).
 */
export function queryEntries(query: SearchQuery): { all: string[]; anyOf: string[]; startsWith: string | null } {
  if (!query.prefix) return { all: query.words, anyOf: [], startsWith: null };
  const chars = [...query.prefix];
  if (chars.length > MAX_PREFIX)
    return { all: [...query.words, prefixEntry(chars.slice(0, MAX_PREFIX).join(""))], anyOf: [], startsWith: query.prefix };
  return { all: query.words, anyOf: [query.prefix, prefixEntry(query.prefix)], startsWith: null };
}

const matchesWord = (query: SearchQuery) => (word: string) =>
  query.words.includes(word) || (query.prefix !== null && word.startsWith(query.prefix));

/** Whether `text` holds a word that starts with `prefix`. */
export const holdsWordStarting = (text: string, prefix: string) => wordsOf(text).some((w) => w.word.startsWith(prefix));

/** Part of a message around its first match, with the ranges of `text` that matched (never HTML). */
export interface Snippet {
  text: string;
  highlights: [number, number][];
}

const SNIPPET = 180;
const BEFORE = 50;
/** Characters of a window before the first match (one more than a snippet may show), and from it on. */
const WINDOW_BEFORE = BEFORE + 1;
const WINDOW_FROM = SNIPPET + 2 * MAX_WORD;
/** Characters (code points) of a part of the text the index keeps: a text of one part is its own window. */
export const TEXT_PART = 1000;
const OFFSET_DIGITS = 6;

/** A message as a line of text: Markdown's markup (emphasis, code, links, headings, quotes, bullets) reads as its text. */
const plain = (markdown: string) =>
  markdown
    .replace(/```[^\n]*/g, " ")
    .replace(/!?\[([^\]\n]*)\]\([^)\n]*\)/g, "$1")
    .replace(/\*\*|__|~~|`+/g, "")
    .replace(/^[ \t]{0,3}(?:#{1,6}|>|[-*+]|\d{1,9}[.)])[ \t]+/gm, "")
    .replace(/\s+/g, " ")
    .trim();

/** A word's initials, under which its mark is kept: its first two characters (those of every word a query's prefix starts). */
const initialsOf = (word: string) => (SURROGATE.test(word) ? [...word].slice(0, 2).join("") : word.slice(0, 2));
/** A word's mark: `\n<word> <offset>`, the offset in code points, six digits wide (a word holds no space or newline). */
const markOf = (word: string) => `\n${word} `;

/**
 * What the index keeps of a message for its snippets (lib/db/tx/search-index.ts): the text of its indexed part as
 * a line, in parts of TEXT_PART characters, and, when there are several, marks that say where each of its words
 * first comes, kept under their initials, so a search finds a match's part without reading the others.
 */
export function snippetSource(markdown: string): { parts: string[]; marks: Map<string, string> } {
  // Never half a surrogate pair at the cut: the text is stored.
  const cut = HIGH_SURROGATE.test(markdown[MAX_INDEXED_CHARS - 1] ?? "") ? MAX_INDEXED_CHARS - 1 : MAX_INDEXED_CHARS;
  const text = plain(markdown.slice(0, cut));
  const parts: string[] = [];
  const marks = new Map<string, string>();
  // Code points before each unit: a low surrogate ends the code point its high one began.
  const points = new Uint32Array(text.length + 1);
  let from = 0;
  for (let unit = 0; unit < text.length; unit++) {
    const code = text.charCodeAt(unit);
    const starts = code < 0xdc00 || code > 0xdfff;
    if (starts && points[unit] > 0 && points[unit] % TEXT_PART === 0) {
      parts.push(text.slice(from, unit));
      from = unit;
    }
    points[unit + 1] = points[unit] + (starts ? 1 : 0);
  }
  parts.push(text.slice(from));
  if (parts.length === 1) return { parts, marks };
  const seen = new Set<string>();
  for (const { word, start } of wordsOf(text)) {
    if (seen.has(word)) continue;
    seen.add(word);
    const initials = initialsOf(word);
    marks.set(initials, `${marks.get(initials) ?? ""}${markOf(word)}${String(points[start]).padStart(OFFSET_DIGITS, "0")}`);
  }
  return { parts, marks };
}

/** The initials under which a text's marks may say where a query's words first come. */
export const queryInitials = (query: SearchQuery) => [
  ...new Set([...query.words, ...(query.prefix ? [query.prefix] : [])].map(initialsOf)),
];

/** Where a query's first match comes in a text (code points), from its marks under `queryInitials`; null: no word of it matches. */
export function firstMatch(marks: string[], query: SearchQuery): number | null {
  const needles = [...query.words.map(markOf), ...(query.prefix ? [`\n${query.prefix}`] : [])];
  let first: number | null = null;
  for (const kept of marks) {
    for (const needle of needles) {
      const at = kept.indexOf(needle);
      if (at < 0) continue;
      const digits = kept.indexOf(" ", at + 1) + 1;
      const offset = Number(kept.slice(digits, digits + OFFSET_DIGITS));
      if (first === null || offset < first) first = offset;
    }
  }
  return first;
}

/** The parts of a long text a snippet around its first match (`firstMatch`, null for none) is cut from. */
export function windowParts(first: number | null): [number, number] {
  const from = Math.max(0, (first ?? 0) - WINDOW_BEFORE);
  return [Math.floor(from / TEXT_PART), Math.floor((from + WINDOW_BEFORE + WINDOW_FROM) / TEXT_PART)];
}

/** The snippet of a long text (more than one part) from the parts `windowParts` names, `parts[0]` the first of them. */
export function snippetOfParts(parts: string[], first: number | null, query: SearchQuery): Snippet {
  const from = Math.max(0, (first ?? 0) - WINDOW_BEFORE);
  const [firstPart] = windowParts(first);
  const points = [...parts.join("")].slice(from - firstPart * TEXT_PART, from - firstPart * TEXT_PART + WINDOW_BEFORE + WINDOW_FROM + 1);
  // One character more than the window: whether the text goes on past it.
  const after = points.length > WINDOW_BEFORE + WINDOW_FROM;
  const text = (after ? points.slice(0, -1) : points).join("");
  return snippetOf(text, query, { before: from > 0, after, matchless: first === null });
}

/**
 * The snippet of a message for a query: about SNIPPET characters of its text from a little before its first match.
 * `text` is the whole text (`snippetSource`), or a window of it from WINDOW_BEFORE characters before its first
 * match: `before` and `after` say whether the text goes on past either end (the words cut there do not count),
 * `matchless` that it has no match (when a word matched only in a link's address, say).
 */
export function snippetOf(
  text: string,
  query: SearchQuery,
  window: { before: boolean; after: boolean; matchless?: boolean } = { before: false, after: false },
): Snippet {
  const cut = (w: Word) => (window.before && w.start === 0) || (window.after && w.end === text.length);
  const matched = window.matchless ? [] : wordsOf(text).filter((w) => !cut(w) && matchesWord(query)(w.word));
  const first = matched[0] ?? { start: 0, end: 0 };
  // From the start of a word shortly before the match, to the end of a word: no word is cut in two.
  let start = 0;
  if (first.start > BEFORE) {
    const gap = /\s+/.exec(text.slice(first.start - BEFORE, first.start));
    start = gap ? first.start - BEFORE + gap.index + gap[0].length : first.start;
  }
  let end = text.length;
  if (window.after || start + SNIPPET < text.length) {
    const lastGap = text.slice(first.end, start + SNIPPET).search(/\s\S*$/);
    end = lastGap >= 0 ? first.end + lastGap : Math.min(text.length, Math.max(start + SNIPPET, first.end));
    if (HIGH_SURROGATE.test(text[end - 1])) end += 1; // never half a surrogate pair
  }
  const head = start > 0 || window.before ? "…" : "";
  const shift = head.length - start;
  const shown = matched.filter((w) => w.start >= start && w.end <= end).map((w): [number, number] => [w.start + shift, w.end + shift]);
  return { text: `${head}${text.slice(start, end)}${end < text.length || window.after ? "…" : ""}`, highlights: joinRanges(shown) };
}

/** Ranges in order, overlapping ones (the parts of one run of letters) joined. */
function joinRanges(ranges: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  for (const [s, e] of ranges) {
    const last = out.at(-1);
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}
