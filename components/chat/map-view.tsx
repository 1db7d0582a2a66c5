"use client";

import "@xyflow/react/dist/style.css";
import { Background, Controls, type Edge, type Node, ReactFlow, type ReactFlowInstance } from "@xyflow/react";
import { useTheme } from "next-themes";
import { useMemo, useRef, useState } from "react";
import type { ChatTree } from "@/lib/session/tree";
import { MapDetails } from "./map-details";
import { NODE_HEIGHT, NODE_WIDTH } from "./map-layout";
import { type ArrowKey, centreOf, type MapGraph, type MapNodeData, mapGraph } from "./map-model";
import { MapContext, type MapControls, NODE_TYPES } from "./map-nodes";

// Colours from app/globals.css, light and dark.
const EDGE_CURRENT = { stroke: "var(--map-edge-current)", strokeWidth: 2 };
const EDGE_REWOUND = { stroke: "var(--map-edge-rewound)", strokeWidth: 1.5 };
const EDGE_LINK = { stroke: "var(--map-edge-link)", strokeWidth: 1.5, strokeDasharray: "5 4" };

const ARIA = { "controls.zoomIn.ariaLabel": "Zoom in", "controls.zoomOut.ariaLabel": "Zoom out", "controls.fitView.ariaLabel": "Fit view" };

/** Readable down to this zoom: a tree that fits in view at it is shown whole. */
const WHOLE_ZOOM = 0.75;

/**
 * Where the map opens: the whole tree when it fits in view at a readable size, else the turn shown now a third
 * of the way down, what led to it above and its other versions beside it.
 */
function openOn(flow: ReactFlowInstance<Node<MapNodeData>>, graph: MapGraph, box: DOMRect | undefined) {
  const width = box?.width ?? 800;
  const height = box?.height ?? 600;
  const xs = graph.nodes.map((n) => n.position.x);
  const ys = graph.nodes.map((n) => n.position.y);
  const [left, top] = [Math.min(...xs), Math.min(...ys)];
  const [right, bottom] = [Math.max(...xs) + NODE_WIDTH, Math.max(...ys) + NODE_HEIGHT];
  const fits = Math.min(width / (right - left + 48), height / (bottom - top + 48));
  if (fits >= WHOLE_ZOOM) return flow.setCenter((left + right) / 2, (top + bottom) / 2, { zoom: Math.min(1, fits), duration: 0 });
  const start = graph.nodes.find((n) => n.id === graph.leafId) ?? graph.nodes[0];
  const centre = centreOf(start.position);
  return flow.setCenter(centre.x, centre.y + height / 6, { zoom: 1, duration: 0 });
}

/**
 * The chat's tree of turns (React Flow): the current head in solid boxes ending at "Shown now", rewound turns
 * greyed, versions side by side, forks and the source as links. It opens on the turn shown now; arrow keys
 * walk the tree, Enter or a click shows a version. Only the nodes in view are rendered, so 1,000 open as fast as 10.
 */
export default function MapView({
  sessionId,
  tree,
  busy,
  onShow,
}: {
  sessionId: string;
  tree: ChatTree;
  busy: boolean;
  onShow: (invocationId: string) => void;
}) {
  const { resolvedTheme } = useTheme();
  const graph = useMemo(() => mapGraph(tree), [tree]);
  /** The node the person moved to or clicked; until then the tab stop is on the turn shown now. */
  const [chosenId, setChosenId] = useState<string | null>(null);
  // A node the chat no longer has (a refetch after a deletion) hands the tab stop to the turn shown now.
  const focused = graph.nodes.find((n) => n.id === chosenId) ?? graph.nodes.find((n) => n.id === graph.leafId) ?? graph.nodes[0] ?? null;
  const focusedId = focused?.id ?? null;
  const flow = useRef<ReactFlowInstance<Node<MapNodeData>> | null>(null);
  const container = useRef<HTMLDivElement>(null);
  // Focus goes to the turn shown now when the map opens, then follows the arrow keys (map-nodes.tsx).
  const pendingFocus = useRef<string | null>(focusedId);

  const nodes = useMemo(
    () =>
      graph.nodes.map(
        (n): Node<MapNodeData> => ({
          id: n.id,
          type: n.data.kind === "turn" ? "turn" : "link",
          position: n.position,
          data: n.data,
          width: NODE_WIDTH,
          height: NODE_HEIGHT,
        }),
      ),
    [graph],
  );
  const edges = useMemo(
    () =>
      graph.nodes.flatMap((n): Edge[] => {
        if (n.parent === null) return [];
        const style = n.data.kind !== "turn" ? EDGE_LINK : n.data.turn.current ? EDGE_CURRENT : EDGE_REWOUND;
        // The nodes say where they are; an edge's "from … to …" would only repeat it in ids.
        return [{ id: `${n.parent}>${n.id}`, source: n.parent, target: n.id, style, domAttributes: { "aria-hidden": true } }];
      }),
    [graph],
  );

  /** Moves the viewport just enough to show the node (centring it when it is out of view). */
  const reveal = (id: string) => {
    const node = graph.nodes.find((n) => n.id === id);
    const box = container.current?.getBoundingClientRect();
    if (!node || !flow.current || !box) return;
    const { x, y, zoom } = flow.current.getViewport();
    const left = node.position.x * zoom + x;
    const top = node.position.y * zoom + y;
    const inView = left >= 0 && top >= 0 && left + NODE_WIDTH * zoom <= box.width && top + NODE_HEIGHT * zoom <= box.height;
    if (!inView) {
      const centre = centreOf(node.position);
      void flow.current.setCenter(centre.x, centre.y, { zoom, duration: 0 });
    }
  };

  const controls: MapControls = {
    focusedId,
    pendingFocus,
    busy,
    focus: setChosenId,
    move(id: string, key: ArrowKey) {
      const next = graph.step(id, key);
      if (next === null) return;
      pendingFocus.current = next;
      reveal(next);
      setChosenId(next);
    },
    show: onShow,
  };

  return (
    <MapContext value={controls}>
      <div ref={container} className="min-h-0 flex-1" aria-busy={busy}>
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={NODE_TYPES}
          onInit={(instance) => {
            flow.current = instance;
            void openOn(instance, graph, container.current?.getBoundingClientRect());
          }}
          onlyRenderVisibleElements
          nodesDraggable={false}
          nodesConnectable={false}
          nodesFocusable={false}
          edgesFocusable={false}
          elementsSelectable={false}
          disableKeyboardA11y
          panOnScroll
          zoomOnDoubleClick={false}
          minZoom={0.1}
          maxZoom={1.5}
          colorMode={resolvedTheme === "dark" ? "dark" : "light"}
          ariaLabelConfig={ARIA}
        >
          <Background />
          <Controls showInteractive={false} />
        </ReactFlow>
      </div>
      {focused?.data.kind === "turn" && <MapDetails key={focused.id} sessionId={sessionId} turn={focused.data.turn} />}
    </MapContext>
  );
}
