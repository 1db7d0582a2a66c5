"use client";

import type { Task } from "@a2a-js/sdk";
import { AlertCircle, ArrowDown, RotateCw } from "lucide-react";
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { Button } from "../ui/button";
import { RewindDivider } from "./rewind-divider";
import { turnRows } from "./turn-rows";
import { TurnView } from "./turn-view";
import { useFollowBottom } from "./use-follow-bottom";
import type { FailedSend, LiveTurn } from "./use-live-turn";
import type { TurnActions } from "./use-turn-actions";

/** Turns rendered at first, and added by each "Show earlier turns": long chats open and update fast. */
const TURNS_PER_PAGE = 40;

/** The live turn as a task to render: the server's once it has named it, else just the user's message. */
function liveTask(live: LiveTurn): Task {
  return (
    live.task ?? {
      kind: "task",
      id: "pending",
      contextId: "",
      status: { state: "submitted" },
      history: [{ kind: "message", messageId: "pending", role: "user", parts: [{ kind: "text", text: live.userText }] }],
    }
  );
}

function FailedTurn({ failed, disabled, onRetry }: { failed: FailedSend; disabled: boolean; onRetry: () => void }) {
  return (
    <section data-testid="failed-turn" className="flex flex-col items-end gap-2">
      <div className="max-w-[85%] rounded-2xl bg-zinc-100 px-4 py-2.5 text-[15px] leading-7 whitespace-pre-wrap break-words opacity-70 dark:bg-zinc-800">
        {failed.text}
      </div>
      <div role="alert" className="flex items-center gap-2 text-sm text-red-600 dark:text-red-400">
        <AlertCircle className="size-4 shrink-0" aria-hidden />
        <span>{failed.error}</span>
        <Button variant="outline" className="px-2 py-1 touch:min-h-11" disabled={disabled} onClick={onRetry}>
          <RotateCw className="size-3.5" aria-hidden />
          Retry
        </Button>
      </div>
    </section>
  );
}

/**
 * The chat's turns, the live turn and a failed send, in a scroller that follows the bottom while the reader
 * is there. `tasks` are the session's turns in order (rewound ones flagged when shown).
 */
export function Conversation({
  sessionId,
  tasks,
  live,
  failed,
  busy,
  actions,
  onRetry,
}: {
  sessionId: string | null;
  tasks: Task[];
  live: LiveTurn | null;
  failed: FailedSend | null;
  busy: boolean;
  actions: TurnActions;
  onRetry: () => void;
}) {
  const visible = tasks.filter((t) => t.id !== live?.task?.id);
  const [pageCount, setPageCount] = useState(1);
  const earlier = Math.max(0, visible.length - pageCount * TURNS_PER_PAGE);
  const shown = earlier ? visible.slice(earlier) : visible;
  const rows = turnRows(shown);
  // Regenerate belongs to the last turn the agent sees, even when rewound turns are shown after it.
  const lastEffective = live ? -1 : rows.findLastIndex((row) => row.rewound === null);
  const scroller = useRef<HTMLElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const { following, jumpToLatest } = useFollowBottom(scroller, content);

  // Earlier turns appear above what the user is reading, so keep its distance from the bottom.
  const scrollFromBottom = useRef<number | null>(null);
  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element || scrollFromBottom.current === null) return;
    element.scrollTop = element.scrollHeight - scrollFromBottom.current;
    scrollFromBottom.current = null;
  });
  const showEarlier = () => {
    if (scroller.current) scrollFromBottom.current = scroller.current.scrollHeight - scroller.current.scrollTop;
    setPageCount((n) => n + 1);
  };

  // A new turn of the user's own brings the view back to the bottom.
  const liveKey = live?.key;
  useEffect(() => {
    if (liveKey !== undefined) jumpToLatest();
  }, [liveKey, jumpToLatest]);

  return (
    <div className="relative min-h-0 flex-1">
      <main ref={scroller} aria-busy={busy} className="h-full overflow-y-auto">
        <div ref={content} className="mx-auto flex max-w-3xl flex-col gap-4 px-4 py-6">
          {visible.length === 0 && !live && !failed && (
            <div className="py-16 text-center text-zinc-500">
              <p className="text-lg font-medium text-zinc-800 dark:text-zinc-200">What shall we do?</p>
              <p className="mt-1 text-sm">Try “set color to red”, “save file notes.txt with content hello” or “recap”.</p>
            </div>
          )}
          {earlier > 0 && (
            <Button variant="outline" className="self-center" onClick={showEarlier}>
              Show earlier turns ({earlier})
            </Button>
          )}
          {rows.map(({ task, rewound, divider }, i) => (
            <div key={task.id} className="space-y-4">
              {divider && rewound && (
                <RewindDivider
                  rewound={rewound}
                  disabled={busy}
                  onRestore={sessionId ? () => actions.restore(rewound.markerInvocationId) : undefined}
                />
              )}
              <TurnView
                sessionId={sessionId ?? ""}
                task={task}
                rewound={rewound !== null}
                isLast={i === lastEffective}
                disabled={busy}
                actions={actions}
              />
            </div>
          ))}
          {live && (
            <TurnView
              sessionId={sessionId ?? ""}
              task={liveTask(live)}
              partial={live.partial || (!live.stopped && (live.task?.history?.length ?? 1) <= 1 ? "…" : undefined)}
              stopped={live.stopped}
              isLast={false}
              disabled
            />
          )}
          {failed && !live && <FailedTurn failed={failed} disabled={busy} onRetry={onRetry} />}
        </div>
      </main>
      {!following && (
        <Button
          variant="outline"
          onClick={jumpToLatest}
          className="absolute bottom-3 left-1/2 -translate-x-1/2 rounded-full bg-white shadow-md touch:min-h-11 dark:bg-zinc-900"
        >
          <ArrowDown className="size-4" aria-hidden />
          Jump to latest
        </Button>
      )}
    </div>
  );
}
