import { describe, expect, it } from "vitest";
import { type LayoutNode, layoutTree, type Position } from "@/components/chat/map/map-layout";
import { crossings } from "./support/crossings";

/** A chat that branches: each turn is edited or regenerated now and then, old branches going on for a while. */
function branchingChat(turns: number, seed = 7): LayoutNode[] {
  let random = seed;
  const next = () => {
    random = (random * 1103515245 + 12345) % 2 ** 31;
    return random / 2 ** 31;
  };
  const nodes: LayoutNode[] = [];
  let tail: string | null = null;
  for (let i = 0; i < turns; i++) {
    const id = `t${i}`;
    // One turn in five is a new version of an earlier turn: a sibling of some turn on the way here.
    const parent: string | null = tail !== null && next() < 0.2 ? (nodes[Math.floor(next() * nodes.length)].parent ?? null) : tail;
    nodes.push({ id, parent });
    tail = id;
  }
  return nodes;
}

const depthOf = (nodes: readonly LayoutNode[]) => {
  const parent = new Map(nodes.map((n) => [n.id, n.parent]));
  return (id: string) => {
    let d = 0;
    for (let p = parent.get(id) ?? null; p !== null; p = parent.get(p) ?? null) d++;
    return d;
  };
};

describe("the map's layout", () => {
  it("lays a branching chat out with no crossing edges, one layer per depth, versions left to right in sent order", () => {
    for (const seed of [1, 7, 42]) {
      const nodes = branchingChat(150, seed);
      const at = layoutTree(nodes);
      expect(at.size).toBe(nodes.length);
      expect(crossings(nodes, at)).toBe(0);
      const depth = depthOf(nodes);
      const rows = new Map<number, number>();
      for (const n of nodes) {
        const y = (at.get(n.id) as Position).y;
        const d = depth(n.id);
        if (!rows.has(d)) rows.set(d, y);
        expect(y).toBe(rows.get(d));
      }
      const byParent = new Map<string | null, string[]>();
      for (const n of nodes) byParent.set(n.parent, [...(byParent.get(n.parent) ?? []), n.id]);
      for (const siblings of byParent.values()) {
        const xs = siblings.map((id) => (at.get(id) as Position).x);
        expect(xs).toEqual([...xs].sort((a, b) => a - b));
      }
    }
  });

  it("the crossing count sees a crossing (the test's own check)", () => {
    const nodes: LayoutNode[] = [
      { id: "a", parent: null },
      { id: "b", parent: null },
      { id: "a1", parent: "a" },
      { id: "b1", parent: "b" },
    ];
    const at = new Map([
      ["a", { x: 0, y: 0 }],
      ["b", { x: 300, y: 0 }],
      ["a1", { x: 300, y: 200 }],
      ["b1", { x: 0, y: 200 }],
    ]);
    expect(crossings(nodes, at)).toBe(1);
  });

  it("lays out 1,000 turns", () => {
    const nodes = branchingChat(1000);
    const started = performance.now();
    const at = layoutTree(nodes);
    console.log(`layout of 1,000 turns: ${(performance.now() - started).toFixed(0)} ms`);
    expect(crossings(nodes, at)).toBe(0);
  });
});
