import { NODE_HEIGHT, NODE_WIDTH, type Position } from "@/components/chat/map/map-layout";

/**
 * Pairs of the map's edges whose straight segments (parent's bottom centre → child's top centre) cross;
 * edges meeting at a node (a parent's children) touch there, which is no crossing.
 */
export function crossings(nodes: readonly { id: string; parent: string | null }[], at: Map<string, Position>): number {
  const segments = nodes
    .filter((n) => n.parent !== null && at.has(n.parent) && at.has(n.id))
    .map((n) => {
      const from = at.get(n.parent as string) as Position;
      const to = at.get(n.id) as Position;
      return {
        ends: [n.parent, n.id],
        a: { x: from.x + NODE_WIDTH / 2, y: from.y + NODE_HEIGHT },
        b: { x: to.x + NODE_WIDTH / 2, y: to.y },
      };
    });
  const side = (p: Position, q: Position, r: Position) => Math.sign((q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x));
  let count = 0;
  for (let i = 0; i < segments.length; i++) {
    for (let j = i + 1; j < segments.length; j++) {
      const [s, t] = [segments[i], segments[j]];
      if (s.ends.some((e) => t.ends.includes(e))) continue;
      if (side(s.a, s.b, t.a) * side(s.a, s.b, t.b) < 0 && side(t.a, t.b, s.a) * side(t.a, t.b, s.b) < 0) count++;
    }
  }
  return count;
}
