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

/** React Flow's viewport: the screen position of the flow's origin, and the zoom. */
export interface Viewport {
  x: number;
  y: number;
  zoom: number;
}

export interface MapGraph {
  nodes: MapNode[];
  /** The last turn the chat shows now, where the map opens (null: the chat shows none). */
  leafId: string | null;
  /** The node an arrow key moves to from `id`: its parent, its child on the current head (else its first), its neighbours in its layer. */
  step(id: string, key: ArrowKey): string | null;
  /** The branch around `id`: what led to it (two turns up), its other versions and what follows it. */
  branch(id: string): MapNode[];
  /**
   * The nodes within half a screen of a `width` × `height` view, with their parents and children, so every
   * edge that crosses the view has both its ends: all React Flow is given, so its cost does not grow with the chat.
   */
  around(view: Viewport, width: number, height: number): MapNode[];
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
  const branch = (id: string) => {
    const node = byId.get(id);
    if (!node) return [];
    const parent = node.parent === null ? undefined : byId.get(node.parent);
    const grandparent = parent?.parent == null ? undefined : byId.get(parent.parent);
    const versions = node.parent === null ? [node] : (children.get(node.parent) ?? [node]);
    return [...new Set([...versions, ...(children.get(id) ?? []), ...(parent ? [parent] : []), ...(grandparent ? [grandparent] : [])])];
  };
  const around = (view: Viewport, width: number, height: number) => {
    const [marginX, marginY] = [width / 2, height / 2];
    const seen = new Set<MapNode>();
    for (const n of nodes) {
      const x = n.position.x * view.zoom + view.x;
      const y = n.position.y * view.zoom + view.y;
      if (x + NODE_WIDTH * view.zoom < -marginX || x > width + marginX || y + NODE_HEIGHT * view.zoom < -marginY || y > height + marginY)
        continue;
      seen.add(n);
      const parent = n.parent === null ? undefined : byId.get(n.parent);
      if (parent) seen.add(parent);
      for (const child of children.get(n.id) ?? []) seen.add(child);
    }
    return [...seen];
  };
  return { nodes, leafId, step, branch, around };
}

/** The centre of a node, where the viewport goes to show it. */
export const centreOf = (position: Position) => ({ x: position.x + NODE_WIDTH / 2, y: position.y + NODE_HEIGHT / 2 });

/** The farthest React Flow may zoom out. */
export const MIN_ZOOM = 0.1;
/** The least zoom a map opens at: a node's smallest text (12 px) is then at least 11 px on screen. */
export const READABLE_ZOOM = 11 / 12;
/** Room around what a view fits. */
const MARGIN = 48;

/** The nodes' bounding box: its left, top, right and bottom. */
function bounds(nodes: readonly { position: Position }[]) {
  const xs = nodes.map((n) => n.position.x);
  const ys = nodes.map((n) => n.position.y);
  return { left: Math.min(...xs), top: Math.min(...ys), right: Math.max(...xs) + NODE_WIDTH, bottom: Math.max(...ys) + NODE_HEIGHT };
}

/** The zoom at which a box fits a `width` × `height` view. */
const fitZoom = (box: ReturnType<typeof bounds>, width: number, height: number) =>
  Math.min(width / (box.right - box.left + MARGIN), height / (box.bottom - box.top + MARGIN));

/** The whole tree centred in a `width` × `height` view, as large as fits (at most 1:1). */
export function wholeView(graph: MapGraph, width: number, height: number): Viewport {
  const box = bounds(graph.nodes);
  const zoom = Math.max(MIN_ZOOM, Math.min(1, fitZoom(box, width, height)));
  return { x: width / 2 - ((box.left + box.right) / 2) * zoom, y: height / 2 - ((box.top + box.bottom) / 2) * zoom, zoom };
}

/**
 * Where the map opens: the whole tree when it fits at a readable size; else the branch around the turn shown
 * now (what led to it, its other versions, what follows it) centred, as large as fits but never below
 * READABLE_ZOOM; and when even that branch is wider (a phone), the turn itself centred, a third of the way down.
 */
export function openingView(graph: MapGraph, width: number, height: number): Viewport {
  const whole = wholeView(graph, width, height);
  if (whole.zoom >= READABLE_ZOOM) return whole;
  const start = graph.nodes.find((n) => n.id === graph.leafId) ?? graph.nodes[0];
  const box = bounds(graph.branch(start.id));
  const fit = fitZoom(box, width, height);
  const zoom = Math.min(1, Math.max(READABLE_ZOOM, fit));
  if (fit >= zoom) {
    return { x: width / 2 - ((box.left + box.right) / 2) * zoom, y: height / 2 - ((box.top + box.bottom) / 2) * zoom, zoom };
  }
  const centre = centreOf(start.position);
  return { x: width / 2 - centre.x * zoom, y: height / 3 - centre.y * zoom, zoom };
}
