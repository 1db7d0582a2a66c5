"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import { ArrowDown, LoaderCircle } from "lucide-react";
import { memo, useEffect, useEffectEvent, useLayoutEffect, useMemo, useRef, useState } from "react";
import { invocationIdOf } from "@/lib/task/metadata";
import type { Task } from "@/lib/task/types";
import { Button } from "../../ui/button";
import { cn } from "../../ui/cn";
import { belowToasts, watchToasts } from "../../ui/toast-place";
import { useHydrated } from "../../ui/use-hydrated";
import { RewindDivider } from "../rewind/rewind-divider";
import { type TurnRow, turnRows } from "../turn/turn-rows";
import { TurnView } from "../turn/turn-view";
import type { TurnActions } from "../turn/use-turn-actions";
import { EmptyChat } from "./empty-chat";
import { FailedTurn, liveTask } from "./pending-turn";
import { useFollowEnd } from "./use-follow-end";
import type { FailedSend, LiveTurn } from "./use-live-turn";

/** A turn's height before it is measured. */
const ESTIMATED_TURN = 180;
/** Turns the server renders (in plain flow, bottom first) for the moment before the page is interactive. */
const SERVER_TURNS = 8;
/** Older turns are fetched while the reader is within this many turns of the first one loaded. */
const LOAD_AHEAD = 10;
/** Within this many pixels of the end counts as "at the end": the list follows new output from there. */
const NEAR_END = 24;
/** How long a turn brought into view for a search hit stays tinted. */
const OUTLINED_MS = 2500;

/** What the list shows: turns, then the live turn or a failed send. */
type Item =
  | { kind: "turn"; key: string; row: TurnRow; isLast: boolean }
  | { kind: "live"; key: string; live: LiveTurn }
  | { kind: "failed"; key: string; failed: FailedSend };

function itemsOf(tasks: Task[], live: LiveTurn | null, failed: FailedSend | null): Item[] {
  const rows = turnRows(tasks.filter((t) => t.id !== live?.task?.id));
  // Regenerate belongs to the last turn the agent sees, even when rewound turns are shown after it.
  const lastEffective = live ? -1 : rows.findLastIndex((row) => row.rewound === null);
  const items: Item[] = rows.map((row, i) => ({ kind: "turn", key: row.task.id, row, isLast: i === lastEffective }));
  if (live) items.push({ kind: "live", key: live.task?.id ?? "live", live });
  else if (failed) items.push({ kind: "failed", key: "failed", failed });
  return items;
}

/** One row of the list; memoised, since scrolling re-renders the list but changes none of its rows. */
const ItemView = memo(function ItemView({
  item,
  sessionId,
  busy,
  actions,
  onRetry,
}: {
  item: Item;
  sessionId: string | null;
  busy: boolean;
  actions: TurnActions;
  onRetry: () => void;
}) {
  if (item.kind === "failed") return <FailedTurn failed={item.failed} disabled={busy} onRetry={onRetry} />;
  if (item.kind === "live") {
    const { live } = item;
    return (
      <TurnView
        sessionId={sessionId ?? ""}
        task={liveTask(live)}
        partial={live.partial || (!live.stopped && (live.task?.history?.length ?? 1) <= 1 ? "…" : undefined)}
        stopped={live.stopped}
        reconnecting={live.reconnecting}
        isLast={false}
        disabled
      />
    );
  }
  const { task, rewound, divider } = item.row;
  return (
    <div className="space-y-4">
      {divider && rewound && (
        <RewindDivider
          rewound={rewound}
          disabled={busy}
          onRestore={sessionId ? () => actions.restore(rewound.markerInvocationId, "divider") : undefined}
        />
      )}
      <TurnView sessionId={sessionId ?? ""} task={task} rewound={rewound !== null} isLast={item.isLast} disabled={busy} actions={actions} />
    </div>
  );
});

/** Loading the turns before the first one loaded, as the reader scrolls up to it. */
export interface OlderTurns {
  more: boolean;
  loading: boolean;
  load: () => void;
}

/**
 * The chat's turns, the live turn and a failed send, in a virtualised scroller (its DOM stays the same size
 * however long the chat) that opens at the end, follows new output while the reader is there, loads older
 * turns as they scroll up and keeps what they read in place when those arrive above it.
 */
export function Conversation({
  sessionId,
  tasks,
  live,
  failed,
  busy,
  actions,
  onRetry,
  older,
  target,
  onTargetShown,
}: {
  sessionId: string | null;
  tasks: Task[];
  live: LiveTurn | null;
  failed: FailedSend | null;
  busy: boolean;
  actions: TurnActions;
  onRetry: () => void;
  older: OlderTurns;
  /** A turn to bring into view: older pages load until it is there, then it is scrolled to and outlined a moment. */
  target?: { invocationId: string } | null;
  onTargetShown?: (found: boolean) => void;
}) {
  const hydrated = useHydrated();
  const items = useMemo(() => itemsOf(tasks, live, failed), [tasks, live, failed]);
  const scroller = useRef<HTMLElement>(null);
  // Room kept above a search hit's turn for the toasts over it (belowToasts).
  const [clearance, setClearance] = useState(0);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ESTIMATED_TURN,
    getItemKey: (index) => items[index].key,
    overscan: 3,
    // Room above the first turn, too, for the toasts over a search hit's turn: it can land below them.
    paddingStart: 24 + clearance,
    paddingEnd: 24,
    anchorTo: "end",
    followOnAppend: true,
    // Lowered to 0 while the reader is away from the end (useFollowEnd).
    scrollEndThreshold: NEAR_END,
    initialOffset: () => items.length * ESTIMATED_TURN,
    scrollPaddingStart: clearance,
  });
  const shown = virtualizer.getVirtualItems();
  const { detached, follow } = useFollowEnd(scroller, virtualizer, NEAR_END);

  // The chat opens at its end, in the same frame the list replaces what the server rendered.
  useLayoutEffect(() => {
    if (hydrated) virtualizer.scrollToEnd();
  }, [hydrated, virtualizer]);

  // A new turn of the user's own brings the view back to the end.
  const liveKey = live?.key;
  const followOwnTurn = useEffectEvent(follow);
  useEffect(() => {
    if (liveKey !== undefined) followOwnTurn();
  }, [liveKey]);

  const firstShown = shown[0]?.index;
  const { more, loading, load } = older;
  useEffect(() => {
    if (hydrated && more && !loading && firstShown !== undefined && firstShown < LOAD_AHEAD) load();
  }, [hydrated, more, loading, firstShown, load]);

  const [outlined, setOutlined] = useState<string | null>(null);
  const shownTarget = useEffectEvent((found: boolean) => onTargetShown?.(found));
  useEffect(() => {
    if (!hydrated || !target) return;
    const index = items.findIndex((item) => item.kind === "turn" && invocationIdOf(item.row.task) === target.invocationId);
    if (index >= 0) {
      // A task later: a toast shown with the hit (a switch's Undo) is on screen by then (sonner adds it so).
      const timer = setTimeout(() => {
        const below = belowToasts(scroller.current as HTMLElement);
        if (below !== clearance) return setClearance(below);
        virtualizer.scrollToIndex(index, { align: below ? "start" : "center" });
        setOutlined(items[index].key);
        shownTarget(true);
      });
      return () => clearTimeout(timer);
    }
    if (!more) shownTarget(false);
    else if (!loading) load();
  }, [hydrated, target, items, more, loading, load, virtualizer, clearance]);
  useEffect(() => {
    if (!outlined) return;
    const timer = setTimeout(() => setOutlined(null), OUTLINED_MS);
    return () => clearTimeout(timer);
  }, [outlined]);

  // A toast added after the hit was brought into view (sonner can add it later than a task on a busy machine):
  // while the hit is outlined, the room above it grows to the toasts' reach and it moves below them.
  const [regrown, setRegrown] = useState<number | null>(null);
  useEffect(() => {
    if (!outlined) return;
    return watchToasts(() => {
      const below = belowToasts(scroller.current as HTMLElement);
      if (below <= clearance) return;
      setRegrown(items.findIndex((item) => item.key === outlined));
      setClearance(below);
    });
  }, [outlined, clearance, items]);
  useEffect(() => {
    if (regrown === null) return;
    if (regrown >= 0) virtualizer.scrollToIndex(regrown, { align: "start" });
    setRegrown(null);
  }, [regrown, virtualizer]);

  const rowClass = "mx-auto w-full max-w-3xl px-4 pb-4";

  return (
    <div className="relative min-h-0 flex-1">
      <main
        ref={scroller}
        aria-busy={busy}
        // Until the page is interactive, a reversed column shows the server's turns from the bottom, as the list will.
        className={cn("h-full overflow-y-auto", !hydrated && "flex flex-col-reverse")}
      >
        {items.length === 0 ? (
          <EmptyChat />
        ) : !hydrated ? (
          <div className="py-6">
            {items.slice(-SERVER_TURNS).map((item) => (
              <div key={item.key} className={rowClass}>
                <ItemView item={item} sessionId={sessionId} busy={busy} actions={actions} onRetry={onRetry} />
              </div>
            ))}
          </div>
        ) : (
          <div className="relative" style={{ height: virtualizer.getTotalSize() }}>
            <div className="absolute inset-x-0 top-0" style={{ transform: `translateY(${shown[0]?.start ?? 0}px)` }}>
              {shown.map((v) => (
                <div
                  key={v.key}
                  data-index={v.index}
                  ref={virtualizer.measureElement}
                  data-outlined={v.key === outlined || undefined}
                  className={cn(
                    rowClass,
                    // A tint a little wider than the turn (a spread shadow: nothing moves), fading after OUTLINED_MS.
                    "rounded-xl transition-[background-color,box-shadow] duration-700",
                    "data-outlined:bg-amber-100/70 data-outlined:ring-8 data-outlined:ring-amber-100/70",
                    "dark:data-outlined:bg-amber-300/10 dark:data-outlined:ring-amber-300/10",
                  )}
                >
                  <ItemView item={items[v.index]} sessionId={sessionId} busy={busy} actions={actions} onRetry={onRetry} />
                </div>
              ))}
            </div>
          </div>
        )}
      </main>
      {loading && (
        <div
          role="status"
          className="absolute top-3 left-1/2 flex -translate-x-1/2 items-center gap-2 rounded-full border border-zinc-200 bg-white px-3 py-1 text-xs text-zinc-600 shadow-sm dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-300"
        >
          <LoaderCircle className="size-3.5 animate-spin" aria-hidden />
          Loading earlier turns…
        </div>
      )}
      {hydrated && detached && items.length > 0 && (
        <Button
          variant="outline"
          onClick={follow}
          className="absolute bottom-3 left-1/2 -translate-x-1/2 rounded-full bg-white shadow-md touch:min-h-11 dark:bg-zinc-900"
        >
          <ArrowDown className="size-4" aria-hidden />
          Jump to latest
        </Button>
      )}
    </div>
  );
}
