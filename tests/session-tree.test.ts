import { describe, expect, it } from "vitest";
import { chatTree, type TreeRow } from "@/lib/session/tree";

const row = (invocationId: string, parentId: string | null, firstSeq: number, text = invocationId, reply = ""): TreeRow => ({
  invocationId,
  parentId,
  firstSeq,
  text,
  reply,
  timestamp: 1_700_000_000 + firstSeq,
  model: null,
  usage: null,
  cost: null,
});

describe("the chat's map (pure)", () => {
  // The reference vector's turns (docs/semantics.md, "Versions"), given out of order.
  const rows = [row("B3", "A", 9), row("A", null, 1), row("B", "A", 3), row("B2", "A", 6)];
  const links = { forks: [], source: null };

  it("orders turns by seq, counts versions among siblings and marks the path to the leaf as current", () => {
    const tree = chatTree(rows, "B2", new Map(), links);
    expect(tree.turns.map((t) => [t.invocation_id, t.sibling_index, t.sibling_count, t.current])).toEqual([
      ["A", 1, 1, true],
      ["B", 1, 3, false],
      ["B2", 2, 3, true],
      ["B3", 3, 3, false],
    ]);
    expect(tree.turns[0].timestamp).toBe("2023-11-14T22:13:21.000Z");
  });

  it("an empty head marks nothing current; labels join their turns; long text is shortened to one line", () => {
    const long = `${"word ".repeat(40)}\n\nmore`;
    const tree = chatTree([...rows, row("C", "B3", 11, long)], null, new Map([["B", { label: "old", pinned: true }]]), links);
    expect(tree.turns.some((t) => t.current)).toBe(false);
    expect(tree.turns[1]).toMatchObject({ label: "old", pinned: true });
    expect(tree.turns[2]).toMatchObject({ label: null, pinned: false });
    const text = tree.turns[4].text;
    expect(text.length).toBeLessThanOrEqual(141);
    expect(text).toMatch(/^word word .*…$/);
    expect(text).not.toContain("\n");
  });

  it("a turn's answer: its first words as plain text, at most 80 characters; none when the turn ended without one", () => {
    const answer = `Done — **color** is now \`red\`. See [the docs](https://example.com) ## then ${"word ".repeat(40)}`;
    const tree = chatTree([row("A", null, 1, "set color to red", answer), row("B", "A", 3)], "B", new Map(), links);
    expect(tree.turns[0].reply).toMatch(/^Done — color is now red\. See the docs then word word .*…$/);
    expect(tree.turns[0].reply.length).toBeLessThanOrEqual(81);
    expect(tree.turns[1].reply).toBe("");
  });

  it("a deep chat is walked without recursion", () => {
    const deep = Array.from({ length: 20_000 }, (_, i) => row(`t${i}`, i ? `t${i - 1}` : null, i + 1));
    const tree = chatTree(deep, "t19999", new Map(), links);
    expect(tree.turns.every((t) => t.current)).toBe(true);
  });
});
