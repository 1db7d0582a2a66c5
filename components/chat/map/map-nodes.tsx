"use client";

import { Handle, type Node, type NodeProps, Position } from "@xyflow/react";
import { CornerDownRight, CornerUpLeft, GitFork, Pin, Tag } from "lucide-react";
import Link from "next/link";
import { createContext, type KeyboardEvent, type RefObject, use, useEffect, useId, useRef } from "react";
import type { MapTurn } from "@/lib/session/tree";
import { cn } from "../../ui/cn";
import type { ArrowKey, MapNodeData } from "./map-model";

/** What every node needs from the map, by context: the nodes' data stays the same while focus moves. */
export interface MapControls {
  /** The node holding the one tab stop of the map (a roving tab index). */
  focusedId: string | null;
  /** The node to take focus once it is rendered (off screen, React Flow renders it only after the viewport moves). */
  pendingFocus: RefObject<string | null>;
  busy: boolean;
  focus(id: string): void;
  move(id: string, key: ArrowKey): void;
  show(invocationId: string): void;
  /** Makes the node the selected version, its name field focused: naming and pinning by pointer, not only arrow keys. */
  name(id: string): void;
}

export const MapContext = createContext<MapControls | null>(null);

const ARROWS = new Set<string>(["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"]);

/** The props every node's focusable element shares: the roving tab stop, arrow keys, and its id for focusing it. */
function useNodeFocus<E extends HTMLElement>(id: string) {
  const map = use(MapContext) as MapControls;
  const ref = useRef<E>(null);
  useEffect(() => {
    const element = ref.current;
    if (!element || map.focusedId !== id) return;
    // React Flow may render a node anew (as the viewport settles): the tab stop's node then takes focus back
    // from wherever the dialog put it (the sheet, or nothing), never from another control.
    const active = document.activeElement;
    const astray = !active || active === document.body || (active !== element && active.contains(element));
    if (map.pendingFocus.current !== id && !astray) return;
    element.focus({ preventScroll: true });
    map.pendingFocus.current = null;
  });
  return {
    map,
    props: {
      ref,
      "data-map-node": id,
      tabIndex: map.focusedId === id ? 0 : -1,
      onFocus: () => map.focus(id),
      onKeyDown: (e: KeyboardEvent) => {
        if (!ARROWS.has(e.key)) return;
        e.preventDefault();
        map.move(id, e.key as ArrowKey);
      },
    },
  };
}

// Edges attach here; the map cannot be edited, so the handles are not shown.
const handles = (
  <>
    <Handle type="target" position={Position.Top} isConnectable={false} className="invisible" />
    <Handle type="source" position={Position.Bottom} isConnectable={false} className="invisible" />
  </>
);

// React Flow leaves nodes that cannot be selected or dragged without pointer events; these take clicks.
const box =
  "pointer-events-auto flex size-full flex-col rounded-lg border px-3 py-2 text-left text-xs focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-500";

/** What a screen reader hears for a turn: what it says, which version it is, whether the chat shows it. */
function describeTurn(turn: MapTurn, leaf: boolean): string {
  const shown = leaf ? "shown now, the last turn" : turn.current ? "shown now" : "rewound";
  return [
    `${turn.label ? `${turn.label}: ` : ""}${turn.text || "No text"}`,
    `version ${turn.sibling_index} of ${turn.sibling_count}`,
    shown,
    ...(turn.pinned ? ["pinned"] : []),
  ].join(", ");
}

/** A turn: its name and pin, its message, the first words of its answer, its version; a click shows that version. */
function TurnNode({ id, data }: NodeProps<Node<MapNodeData>>) {
  const { map, props } = useNodeFocus<HTMLButtonElement>(id);
  const replyId = useId();
  if (data.kind !== "turn") return null;
  const { turn, leaf } = data;
  return (
    <>
      {handles}
      <div className="relative size-full">
        <button
          type="button"
          {...props}
          aria-label={describeTurn(turn, leaf)}
          aria-describedby={turn.reply ? replyId : undefined}
          aria-current={leaf ? "true" : undefined}
          aria-disabled={map.busy || undefined}
          data-current={turn.current || undefined}
          onClick={() => {
            map.focus(id);
            if (!map.busy) map.show(turn.invocation_id);
          }}
          className={cn(
            box,
            "gap-0.5 bg-white dark:bg-zinc-900",
            turn.current
              ? "border-zinc-900 text-zinc-900 dark:border-zinc-200 dark:text-zinc-100"
              : // Greyed, yet readable: zinc-500 on zinc-50 is 4.6:1, zinc-400 on zinc-950 about 7.5:1.
                "border-dashed border-zinc-400 bg-zinc-50 text-zinc-500 dark:border-zinc-600 dark:bg-zinc-950 dark:text-zinc-400",
            leaf && "border-2 border-blue-600 dark:border-blue-400",
            map.busy ? "cursor-progress" : "cursor-pointer hover:border-blue-500",
          )}
        >
          {(turn.label || turn.pinned) && (
            <span className="flex min-w-0 items-center gap-1 pr-6 font-semibold text-zinc-900 touch:pr-9 dark:text-zinc-100">
              {turn.pinned && <Pin className="size-3 shrink-0 text-amber-600 dark:text-amber-400" aria-hidden />}
              <span className="truncate">{turn.label ?? "Pinned"}</span>
            </span>
          )}
          <span className={cn("min-w-0 break-words", turn.label || turn.pinned ? "line-clamp-1" : "line-clamp-2 pr-6 touch:pr-9")}>
            {turn.text || <span className="italic">No text</span>}
          </span>
          {turn.reply && (
            <span id={replyId} className="flex min-w-0 items-baseline gap-1 text-zinc-500 dark:text-zinc-400">
              <CornerDownRight className="size-3 shrink-0 self-center" aria-hidden />
              <span className="truncate">{turn.reply}</span>
            </span>
          )}
          <span className="mt-auto flex items-center justify-between text-zinc-500 tabular-nums dark:text-zinc-400">
            <span>{turn.sibling_count > 1 ? `${turn.sibling_index} / ${turn.sibling_count}` : ""}</span>
            {leaf && <span className="font-medium text-blue-700 dark:text-blue-300">Shown now</span>}
          </span>
        </button>
        <button
          type="button"
          tabIndex={-1}
          aria-label={`Name or pin: ${turn.label ?? turn.text}`}
          title="Name or pin this version"
          onClick={() => map.name(id)}
          className="pointer-events-auto absolute top-1 right-1 inline-flex size-6 items-center justify-center rounded-md text-zinc-500 hover:bg-zinc-100 hover:text-zinc-900 touch:size-9 dark:hover:bg-zinc-800 dark:hover:text-zinc-100"
        >
          <Tag className="size-3.5" aria-hidden />
        </button>
      </div>
    </>
  );
}

/** Another chat branching off here: a fork of this one, or the chat this one was forked from. */
function LinkNode({ id, data }: NodeProps<Node<MapNodeData>>) {
  const { props } = useNodeFocus<HTMLAnchorElement>(id);
  if (data.kind === "turn") return null;
  const Icon = data.kind === "fork" ? GitFork : CornerUpLeft;
  return (
    <>
      {handles}
      <Link
        href={`/chat/${data.link.session_id}`}
        {...props}
        className={cn(
          box,
          "justify-center border-dashed border-violet-400 bg-violet-50 text-violet-900 hover:border-violet-600",
          "dark:border-violet-500/60 dark:bg-violet-950/40 dark:text-violet-100",
        )}
      >
        <span className="flex items-center gap-1 text-xs text-violet-700 dark:text-violet-300">
          <Icon className="size-3" aria-hidden />
          {data.kind === "fork" ? "Fork" : "Forked from"}
        </span>
        <span className="line-clamp-2 font-medium">{data.link.name}</span>
      </Link>
    </>
  );
}

export const NODE_TYPES = { turn: TurnNode, link: LinkNode };
