/**
 * Where the map's nodes go: d3-hierarchy's tidy tree (Buchheim, Jünger and Leipert's linear-time
 * Reingold–Tilford), a layered layout with one layer per turn depth, so the versions of a turn sit side by
 * side in its layer, left to right in the order they were sent (as the version pager counts them), each
 * parent centred over its children, and no two edges crossing. Linear in the nodes: 1,000 take a few ms
 * (elkjs's layered algorithm took 200–300 ms of CPU, dagre over a second, on this machine).
 */
import { stratify, tree } from "d3-hierarchy";

export const NODE_WIDTH = 224;
export const NODE_HEIGHT = 100;
const GAP_X = 24;
const GAP_Y = 40;

export interface LayoutNode {
  id: string;
  /** Another node's id, or null for a root. */
  parent: string | null;
}

export interface Position {
  x: number;
  y: number;
}

/** Stands above the roots (a chat whose first message has versions is a forest), never drawn. */
const TOP = "\u0000top";

/** Top-left corners of `nodes`, a forest; siblings read left to right in the order given. */
export function layoutTree(nodes: readonly LayoutNode[]): Map<string, Position> {
  const ids = new Set(nodes.map((n) => n.id));
  const root = stratify<LayoutNode>()
    .id((n) => n.id)
    .parentId((n) => (n.id === TOP ? null : n.parent !== null && ids.has(n.parent) ? n.parent : TOP))([
    { id: TOP, parent: null },
    ...nodes,
  ]);
  // Siblings one gap apart, cousins two: a branch reads as a group.
  tree<LayoutNode>()
    .nodeSize([NODE_WIDTH + GAP_X, NODE_HEIGHT + GAP_Y])
    .separation((a, b) => (a.parent === b.parent ? 1 : 1.25))(root);
  const at = new Map<string, Position>();
  for (const n of root.descendants()) {
    if (n.id === TOP) continue;
    at.set(n.id as string, { x: (n.x ?? 0) - NODE_WIDTH / 2, y: (n.depth - 1) * (NODE_HEIGHT + GAP_Y) });
  }
  return at;
}
