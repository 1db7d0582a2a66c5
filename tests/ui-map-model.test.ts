import { describe, expect, it } from "vitest";
import { NODE_HEIGHT, NODE_WIDTH } from "@/components/chat/map/map-layout";
import { mapGraph, openingView, READABLE_ZOOM } from "@/components/chat/map/map-model";
import { chatTree, type TreeRow } from "@/lib/session/tree";

const row = (invocationId: string, parentId: string | null, firstSeq: number): TreeRow => ({
  invocationId,
  parentId,
  firstSeq,
  text: invocationId,
  reply: "",
  timestamp: 1_700_000_000,
  model: null,
  usage: null,
  cost: null,
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

const links = () => ({ forks: [], source: null });

describe("what React Flow is given", () => {
  // A chain of 200 turns with a second version of the 100th.
  const rows = Array.from({ length: 200 }, (_, i) => row(`t${i}`, i ? `t${i - 1}` : null, i + 1));
  const graph = mapGraph(chatTree([...rows, row("v99", "t98", 300)], "t199", new Map(), { forks: [], source: null }));

  it("only the nodes around the view, with the parents and children of those in it", () => {
    const leaf = graph.nodes.find((n) => n.id === "t199")!;
    const view = { x: 400 - leaf.position.x, y: 100 - leaf.position.y, zoom: 1 };
    const ids = graph.around(view, 800, 600).map((n) => n.id);
    expect(ids).toContain("t199");
    expect(ids.length).toBeLessThan(20);
    const top = Math.min(...ids.map((id) => Number(id.slice(1))));
    // Every node given has its parent given too, but the topmost (the parent of the highest in the margin).
    for (const id of ids) if (id !== `t${top}`) expect(ids).toContain(`t${Number(id.slice(1)) - 1}`);
    expect(graph.around({ x: 0, y: 0, zoom: 0.001 }, 800, 600)).toHaveLength(201);
  });

  it("on a phone, opens on the branch around the turn shown now, readable: never below READABLE_ZOOM", () => {
    // Two versions of the first turn, each answered by a second; the second version's is shown.
    const forked = mapGraph(
      chatTree([row("A", null, 1), row("A2", null, 5), row("B", "A", 3), row("B2", "A2", 7)], "B2", new Map(), links()),
    );
    const [width, height] = [390, 600];
    const view = openingView(forked, width, height);
    expect(view.zoom).toBeGreaterThanOrEqual(READABLE_ZOOM);
    for (const id of ["B2", "A2"]) {
      const { x, y } = forked.nodes.find((n) => n.id === id)!.position;
      const [left, top] = [x * view.zoom + view.x, y * view.zoom + view.y];
      expect([left >= 0, top >= 0, left + NODE_WIDTH * view.zoom <= width, top + NODE_HEIGHT * view.zoom <= height], id).toEqual([
        true,
        true,
        true,
        true,
      ]);
    }
  });

  it("opens whole when the tree fits, else on the turn shown now", () => {
    const small = mapGraph(tree);
    expect(openingView(small, 1200, 800).zoom).toBeGreaterThanOrEqual(0.75);
    const view = openingView(graph, 1200, 800);
    const leaf = graph.nodes.find((n) => n.id === "t199")!;
    expect(view.zoom).toBe(1);
    expect(leaf.position.y + view.y).toBeGreaterThan(0);
    expect(leaf.position.y + view.y).toBeLessThan(800);
  });
});
