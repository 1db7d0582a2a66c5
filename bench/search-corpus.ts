/**
 * The search bench's messages: English-like text, reproducible. Words are drawn by a Zipf law from a
 * vocabulary of the repo's own docs (most frequent first) followed by a long tail of made-up words, so a
 * few words are in most messages, most words in very few, and prefixes spread as in real text.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./env";

const VOCABULARY = 50_000;
const SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "zi", "pa", "qu", "re", "st", "an", "el", "or", "ix", "um", "ba", "de"];

/** A seeded generator (xorshift32): the same corpus on every run and both dialects. */
export function random(seed = 42) {
  let state = seed;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4_294_967_296;
  };
}

export function corpus(rnd: () => number) {
  const docs = ["README.md", "docs/semantics.md", "docs/api.md"].map((f) => readFileSync(path.join(ROOT, f), "utf8")).join(" ");
  const counts = new Map<string, number>();
  for (const word of docs.toLowerCase().match(/[a-z]{2,}/g) ?? []) counts.set(word, (counts.get(word) ?? 0) + 1);
  const words = [...counts].sort((a, b) => b[1] - a[1]).map(([word]) => word);
  const known = new Set(words);
  for (let n = 400; words.length < VOCABULARY; n++) {
    let word = "";
    for (let k = n; k > 0; k = Math.floor(k / SYLLABLES.length)) word += SYLLABLES[k % SYLLABLES.length];
    if (!known.has(word)) words.push(word);
  }
  const cumulative: number[] = [];
  let total = 0;
  for (let i = 0; i < words.length; i++) {
    total += 1 / (i + 1) ** 1.05;
    cumulative.push(total);
  }
  const pick = () => {
    const r = rnd() * total;
    let lo = 0;
    let hi = words.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < r) lo = mid + 1;
      else hi = mid;
    }
    return words[lo];
  };
  return {
    /** The vocabulary, most frequent first. */
    words,
    /** A message of 5 to 55 words; the first capitalised, a full stop at the end. */
    message() {
      const n = 5 + Math.floor(rnd() * 50);
      const text = Array.from({ length: n }, pick).join(" ");
      return `${text[0].toUpperCase()}${text.slice(1)}.`;
    },
  };
}
