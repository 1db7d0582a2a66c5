"use client";

import "@xyflow/react/dist/style.css";
import { Background, ControlButton, Controls, type Edge, type Node, ReactFlow, type ReactFlowInstance } from "@xyflow/react";
import { Maximize } from "lucide-react";
import { useTheme } from "next-themes";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { ChatTree } from "@/lib/session/tree";
import { placeToastsAbove } from "../../ui/toast-place";
import { MapDetails } from "./map-details";
import { NODE_HEIGHT, NODE_WIDTH } from "./map-layout";
import { type ArrowKey, centreOf, type MapNodeData, MIN_ZOOM, mapGraph, openingView, type Viewport, wholeView } from "./map-model";
import { MapContext, type MapControls, NODE_TYPES } from "./map-nodes";

// Colours from app/globals.css, light and dark.
const EDGE_CURRENT = { stroke: "var(--map-edge-current)", strokeWidth: 2 };
const EDGE_REWOUND = { stroke: "var(--map-edge-rewound)", strokeWidth: 1.5 };
const EDGE_LINK = { stroke: "var(--map-edge-link)", strokeWidth: 1.5, strokeDasharray: "5 4" };

const ARIA = { "controls.zoomIn.ariaLabel": "Zoom in", "controls.zoomOut.ariaLabel": "Zoom out" };

/**
 * The chat's tree of turns (React Flow): the current head in solid boxes ending at "Shown now", rewound turns
 * greyed, versions side by side, forks and the source as links. It opens on the turn shown now; arrow keys
 * walk the tree, Enter or a click shows a version. React Flow is given only the nodes in and near the view, so a
 * chat of 1,000 turns opens about as fast as one of 10.
 */
export default function MapView({
  sessionId,
  tree,
  busy,
  onShow,
  onCompare,
}: {
  sessionId: string;
  tree: ChatTree;
  busy: boolean;
  onShow: (invocationId: string) => void;
  onCompare: (invocationId: string) => void;
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
  // A node's "Name or pin" selects it and puts focus in the name field, once the details show that node.
  const nameField = useRef<HTMLInputElement>(null);
  const naming = useRef(false);
  useEffect(() => {
    if (!naming.current) return;
    naming.current = false;
    nameField.current?.focus();
  });

  // The view (and its size): React Flow renders at most what is around it.
  const [view, setView] = useState<Viewport | null>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });
  // biome-ignore lint/correctness/useExhaustiveDependencies: where the map opens is decided once; a newer tree keeps the view
  useLayoutEffect(() => {
    const element = container.current as HTMLDivElement;
    const { width, height } = element.getBoundingClientRect();
    setSize({ width, height });
    setView(openingView(graph, width, height));
    const observer = new ResizeObserver(([entry]) => setSize({ width: entry.contentRect.width, height: entry.contentRect.height }));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  // Toasts go below the canvas's branch while the map is open: at its foot, above the details.
  useLayoutEffect(() => {
    const element = container.current as HTMLDivElement;
    const place = () => placeToastsAbove(Math.max(16, Math.round(window.innerHeight - element.getBoundingClientRect().bottom) + 12));
    place();
    const observer = new ResizeObserver(place);
    observer.observe(element);
    window.addEventListener("resize", place);
    return () => {
      observer.disconnect();
      window.removeEventListener("resize", place);
      placeToastsAbove(null);
    };
  }, []);
  const shown = useMemo(() => (view ? graph.around(view, size.width, size.height) : []), [graph, view, size]);
  const nodes = useMemo(
    () =>
      shown.map(
        (n): Node<MapNodeData> => ({
          id: n.id,
          type: n.data.kind === "turn" ? "turn" : "link",
          position: n.position,
          data: n.data,
          width: NODE_WIDTH,
          height: NODE_HEIGHT,
        }),
      ),
    [shown],
  );
  const edges = useMemo(() => {
    const ids = new Set(shown.map((n) => n.id));
    return shown.flatMap((n): Edge[] => {
      if (n.parent === null || !ids.has(n.parent)) return [];
      const style = n.data.kind !== "turn" ? EDGE_LINK : n.data.turn.current ? EDGE_CURRENT : EDGE_REWOUND;
      // The nodes say where they are; an edge's "from … to …" would only repeat it in ids.
      return [{ id: `${n.parent}>${n.id}`, source: n.parent, target: n.id, style, domAttributes: { "aria-hidden": true } }];
    });
  }, [shown]);

  const moveTo = (next: Viewport) => {
    void flow.current?.setViewport(next, { duration: 0 });
    setView(next);
  };

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
      moveTo({ x: box.width / 2 - centre.x * zoom, y: box.height / 2 - centre.y * zoom, zoom });
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
    name(id: string) {
      naming.current = true;
      setChosenId(id);
    },
  };

  return (
    <MapContext value={controls}>
      <div ref={container} className="min-h-0 flex-1" aria-busy={busy}>
        {view && (
          <ReactFlow
            nodes={nodes}
            edges={edges}
            nodeTypes={NODE_TYPES}
            defaultViewport={view}
            onInit={(instance) => {
              flow.current = instance;
            }}
            onMove={(_, next) => setView(next)}
            nodesDraggable={false}
            nodesConnectable={false}
            nodesFocusable={false}
            edgesFocusable={false}
            elementsSelectable={false}
            disableKeyboardA11y
            panOnScroll
            zoomOnDoubleClick={false}
            minZoom={MIN_ZOOM}
            maxZoom={1.5}
            colorMode={resolvedTheme === "dark" ? "dark" : "light"}
            ariaLabelConfig={ARIA}
          >
            <Background />
            {/* At the top: the foot of the canvas is where toasts go while the map is open. */}
            <Controls position="top-right" showInteractive={false} showFitView={false}>
              <ControlButton aria-label="Fit view" title="Fit view" onClick={() => moveTo(wholeView(graph, size.width, size.height))}>
                <Maximize aria-hidden />
              </ControlButton>
            </Controls>
          </ReactFlow>
        )}
      </div>
      {focused?.data.kind === "turn" && (
        <MapDetails key={focused.id} sessionId={sessionId} turn={focused.data.turn} onCompare={onCompare} nameField={nameField} />
      )}
    </MapContext>
  );
}
