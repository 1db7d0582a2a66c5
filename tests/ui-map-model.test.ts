import { describe, expect, it } from "vitest";
import { mapGraph } from "@/components/chat/map-model";
import { chatTree, type TreeRow } from "@/lib/session/tree";

const row = (invocationId: string, parentId: string | null, firstSeq: number): TreeRow => ({
  invocationId,
  parentId,
  firstSeq,
  text: invocationId,
  timestamp: 1_700_000_000,
});

// A, then B with versions B2 and B3 (B2 shown, with a turn C after it); a fork after A; this chat forked after B3.
const tree = chatTree([row("A", null, 1), row("B", "A", 3), row("B2", "A", 6), row("C", "B2", 8), row("B3", "A", 11)], "C", new Map(), {
  forks: [{ session_id: "f1", name: "Fork of it", after_invocation_id: "A" }],
  source: { session_id: "s0", name: "Source", after_invocation_id: null },
});

describe("the map's graph", () => {
  const graph = mapGraph(tree);

  it("opens on the last turn shown; turns, forks and the source are nodes of one tree", () => {
    expect(graph.leafId).toBe("C");
    expect(graph.nodes.map((n) => [n.id, n.parent])).toEqual([
      ["A", null],
      ["B", "A"],
      ["B2", "A"],
      ["C", "B2"],
      ["B3", "A"],
      ["fork:f1", "A"],
      ["source:s0", null],
    ]);
    const y = (id: string) => graph.nodes.find((n) => n.id === id)?.position.y;
    expect(new Set(["B", "B2", "B3", "fork:f1"].map(y)).size).toBe(1);
    expect(y("A")).toBe(y("source:s0"));
  });

  it("arrow keys: up to the parent, down to the child shown (else the first), left and right along the layer", () => {
    expect(graph.step("C", "ArrowUp")).toBe("B2");
    expect(graph.step("A", "ArrowUp")).toBeNull();
    expect(graph.step("A", "ArrowDown")).toBe("B2");
    expect(graph.step("B", "ArrowDown")).toBeNull();
    expect(graph.step("B2", "ArrowLeft")).toBe("B");
    expect(graph.step("B", "ArrowLeft")).toBeNull();
    expect(graph.step("B3", "ArrowRight")).toBe("fork:f1");
    expect(graph.step("A", "ArrowRight")).toBe("source:s0");
    expect(graph.step("fork:f1", "ArrowUp")).toBe("A");
  });
});
