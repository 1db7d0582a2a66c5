/** What the index keeps of a message for its snippets (lib/session/search-text.ts): a window of it gives the whole text's snippet. */
import { describe, expect, it } from "vitest";
import {
  firstMatch,
  parseQuery,
  queryInitials,
  type SearchQuery,
  snippetOf,
  snippetOfParts,
  snippetSource,
  TEXT_PART,
  windowParts,
  wordsOf,
  wordsOfRun,
} from "@/lib/session/search-text";

/** The snippet as a search reads it: a text of one part whole, a longer one from the parts around its first match. */
function fromIndex(markdown: string, query: SearchQuery) {
  const { parts, marks } = snippetSource(markdown);
  if (parts.length === 1) return snippetOf(parts[0], query);
  const first = firstMatch(
    queryInitials(query).flatMap((initials) => marks.get(initials) ?? []),
    query,
  );
  const [from, to] = windowParts(first);
  return snippetOfParts(parts.slice(from, to + 1), first, query);
}

/** The snippet of the whole text. */
const fromWhole = (markdown: string, query: SearchQuery) => snippetOf(snippetSource(markdown).parts.join(""), query);

/** A deterministic stream of numbers in [0, 1). */
function random(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

const VOCABULARY = [
  "apple",
  "Apple",
  "café",
  "CAFE",
  "naïve",
  "über",
  "日本",
  "😀smile",
  "x".repeat(90),
  "ﬁne",
  "heron",
  "herons",
  "a",
  "to",
];

describe("the tokenizer", () => {
  it("finds the runs one regular expression over the whole text finds, walking ASCII ones unit by unit", () => {
    const next = random(11);
    const alphabet = ["a", "Z", "7", " ", "-", ".", "é", "e\u0301", "ß", "İ", "日", "か", "😀", "𝐀", "①", "ﬁ", "\u200b", "\n", "—", "Ж"];
    for (let round = 0; round < 2000; round++) {
      const text = Array.from({ length: Math.floor(next() * 40) }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
      const runs = [...text.matchAll(/[\p{L}\p{N}\p{M}]+/gu)].flatMap((run) => wordsOfRun(run[0], run.index));
      expect([text, wordsOf(text)]).toEqual([text, runs]);
    }
  });
});

describe("snippets from the index's parts and marks", () => {
  it("keep the text in parts of TEXT_PART code points, marks only when there are several", () => {
    const short = snippetSource("**Short** text");
    expect(short).toEqual({ parts: ["Short text"], marks: new Map() });
    const long = snippetSource(`${"😀".repeat(TEXT_PART + 1)} heron`);
    expect(long.parts.map((p) => [...p].length)).toEqual([TEXT_PART, 7]);
    expect(long.marks.get("he")).toBe(`\nheron ${String(TEXT_PART + 2).padStart(6, "0")}`);
    // The indexed part ends at 100,000 characters, never inside a surrogate pair.
    const cut = snippetSource(`${"a".repeat(99_999)}😀 heron`).parts;
    expect(cut.join("")).toBe("a".repeat(99_999));
  });

  it("are the whole text's snippet, wherever the first match falls, whatever the words", () => {
    const next = random(7);
    const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)];
    for (let round = 0; round < 150; round++) {
      const words = Array.from(
        { length: 100 + Math.floor(next() * 1500) },
        () => `${pick(VOCABULARY)}${next() < 0.5 ? Math.floor(next() * 500) : ""}`,
      );
      const markdown = words.join(pick([" ", "  ", ", ", "\n- ", " **"]));
      const query = parseQuery(
        pick(["apple", "cafe", "naive uber", "日", "smile", "her", "heron", "herons", "fine", "apple12", "zzz", "to a"]),
      );
      if (!query) throw new Error("a query with no word");
      expect([round, fromIndex(markdown, query)]).toEqual([round, fromWhole(markdown, query)]);
    }
  });

  it("of a 1 MB message, around a match 90,000 characters in", () => {
    const markdown = `${"lorem ipsum ".repeat(7500)}the quartz vein ${"dolor sit ".repeat(90_000)}`;
    const query = parseQuery("quartz") as SearchQuery;
    const snippet = fromIndex(markdown, query);
    expect(snippet).toEqual(fromWhole(markdown, query));
    expect(snippet.text).toMatch(/^…ipsum lorem .* the quartz vein dolor .*…$/);
    expect(snippet.highlights.map(([s, e]) => snippet.text.slice(s, e))).toEqual(["quartz"]);
  });

  it("start at the start, unhighlighted, when only a link's address matched", () => {
    const markdown = `[the docs](https://example.com/heron) ${"word ".repeat(400)}`;
    const query = parseQuery("heron") as SearchQuery;
    expect(fromIndex(markdown, query)).toEqual(fromWhole(markdown, query));
    expect(fromIndex(markdown, query)).toMatchObject({ text: expect.stringMatching(/^the docs word/), highlights: [] });
  });
});
