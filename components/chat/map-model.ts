/**
 * The map's graph from the chat's tree: a node per turn, per fork of the chat and for the chat's source, laid
 * out as one tree (map-layout.ts), and where each arrow key goes from each node.
 */
import { type ChatTree, type MapLink, type MapTurn, shownLeaf } from "@/lib/session/tree";
import { layoutTree, NODE_HEIGHT, NODE_WIDTH, type Position } from "./map-layout";

export type MapNodeData = { kind: "turn"; turn: MapTurn; leaf: boolean } | { kind: "fork" | "source"; link: MapLink };

interface MapNode {
  id: string;
  parent: string | null;
  data: MapNodeData;
  position: Position;
}

export type ArrowKey = "ArrowUp" | "ArrowDown" | "ArrowLeft" | "ArrowRight";

export interface MapGraph {
  nodes: MapNode[];
  /** The last turn the chat shows now, where the map opens (null: the chat shows none). */
  leafId: string | null;
  /** The node an arrow key moves to from `id`: its parent, its child on the current head (else its first), its neighbours in its layer. */
  step(id: string, key: ArrowKey): string | null;
}

const linkNodeId = (kind: "fork" | "source", sessionId: string) => `${kind}:${sessionId}`;

export function mapGraph(tree: ChatTree): MapGraph {
  const leafId = shownLeaf(tree);
  const unplaced = [
    ...tree.turns.map((turn) => ({
      id: turn.invocation_id,
      parent: turn.parent_invocation_id,
      data: { kind: "turn" as const, turn, leaf: turn.invocation_id === leafId },
    })),
    ...tree.forks.map((link) => ({
      id: linkNodeId("fork", link.session_id),
      parent: link.after_invocation_id,
      data: { kind: "fork" as const, link },
    })),
    ...(tree.source
      ? [
          {
            id: linkNodeId("source", tree.source.session_id),
            parent: tree.source.after_invocation_id,
            data: { kind: "source" as const, link: tree.source },
          },
        ]
      : []),
  ];
  const at = layoutTree(unplaced);
  const nodes = unplaced.map((n) => ({ ...n, position: at.get(n.id) as Position }));

  const byId = new Map(nodes.map((n) => [n.id, n]));
  const children = new Map<string, MapNode[]>();
  const layers = new Map<number, MapNode[]>();
  const add = <K>(map: Map<K, MapNode[]>, key: K, n: MapNode) => {
    const list = map.get(key);
    if (list) list.push(n);
    else map.set(key, [n]);
  };
  for (const n of nodes) {
    if (n.parent !== null) add(children, n.parent, n);
    add(layers, n.position.y, n);
  }
  const place = new Map<string, { layer: MapNode[]; index: number }>();
  for (const layer of layers.values()) {
    layer.sort((a, b) => a.position.x - b.position.x);
    for (const [index, n] of layer.entries()) place.set(n.id, { layer, index });
  }
  const isCurrent = (n: MapNode) => n.data.kind === "turn" && n.data.turn.current;
  const step = (id: string, key: ArrowKey): string | null => {
    const node = byId.get(id);
    if (!node) return null;
    if (key === "ArrowUp") return node.parent !== null && byId.has(node.parent) ? node.parent : null;
    if (key === "ArrowDown") {
      const below = children.get(id) ?? [];
      return (below.find(isCurrent) ?? below[0])?.id ?? null;
    }
    const { layer, index } = place.get(id) as { layer: MapNode[]; index: number };
    return layer[index + (key === "ArrowLeft" ? -1 : 1)]?.id ?? null;
  };
  return { nodes, leafId, step };
}

/** The centre of a node, where the viewport goes to show it. */
export const centreOf = (position: Position) => ({ x: position.x + NODE_WIDTH / 2, y: position.y + NODE_HEIGHT / 2 });
