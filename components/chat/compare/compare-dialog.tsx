"use client";

import { useQuery } from "@tanstack/react-query";
import { Dialog } from "radix-ui";
import { useState } from "react";
import { api } from "@/lib/api/client";
import { queryKeys } from "@/lib/query-keys";
import type { MapTurn } from "@/lib/session/tree";
import { messageText } from "@/lib/task/convert";
import type { Task } from "@/lib/task/types";
import { Button } from "../../ui/button";
import { cn } from "../../ui/cn";
import { SheetHeader } from "../../ui/sheet-header";
import { clockTime } from "../history/history-entries";
import { useTreeQuery } from "../queries";
import { replyText } from "../turn/agent-parts";
import { factsLine } from "../turn/usage-format";
import { openingPair, type Piece, tookTime, versionsOf, wordDiff } from "./compare-model";

type Pair = [left: string, right: string];

/**
 * Where focus goes when the dialog closes: the compared turn's version menu in the chat, else the composer. Its
 * openers (a menu item, the map's button) are gone by then, and Radix would drop focus to the page's body.
 */
function focusComparedTurn(invocationId: string) {
  const pager = document.querySelector<HTMLElement>(`[data-versions~="${CSS.escape(invocationId)}"] [aria-label="Version menu"]`);
  (pager ?? document.querySelector<HTMLElement>('textarea[aria-label="Message"]'))?.focus();
}

const PIECE_CLASS: Record<Piece["change"], string> = {
  same: "",
  removed: "rounded-sm bg-red-100 text-red-900 line-through decoration-red-700/60 dark:bg-red-950 dark:text-red-200",
  added: "rounded-sm bg-emerald-100 text-emerald-900 no-underline dark:bg-emerald-950 dark:text-emerald-200",
};

function Pieces({ pieces }: { pieces: Piece[] }) {
  return (
    <p className="text-sm break-words whitespace-pre-wrap">
      {pieces.map((piece, i) => {
        const key = `${i}:${piece.change}`;
        if (piece.change === "removed")
          return (
            <del key={key} className={PIECE_CLASS.removed}>
              {piece.text}
            </del>
          );
        if (piece.change === "added")
          return (
            <ins key={key} className={PIECE_CLASS.added}>
              {piece.text}
            </ins>
          );
        return <span key={key}>{piece.text}</span>;
      })}
    </p>
  );
}

/** One side: which version, its model, tokens and time, the user's message when the versions' differ, the reply. */
function Side({
  side,
  turn,
  versions,
  task,
  pieces,
  showUserText,
  busy,
  onPick,
  onKeep,
}: {
  side: "Left" | "Right";
  turn: MapTurn;
  versions: MapTurn[];
  task: Task | null | undefined;
  pieces: Piece[] | null;
  showUserText: boolean;
  busy: boolean;
  onPick: (invocationId: string) => void;
  onKeep: () => void;
}) {
  const took = task ? tookTime(turn.timestamp, task.status.timestamp) : null;
  const facts = factsLine(turn);
  return (
    <section
      aria-label={`${side}: version ${turn.sibling_index} of ${versions.length}`}
      data-testid="compare-side"
      className="flex min-w-0 flex-col gap-2 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800"
    >
      <div className="flex flex-wrap items-center gap-2">
        <select
          aria-label={`${side} version`}
          value={turn.invocation_id}
          onChange={(e) => onPick(e.target.value)}
          className="rounded-md border border-zinc-300 bg-transparent px-2 py-1 text-sm touch:min-h-11 dark:border-zinc-700 dark:bg-zinc-950"
        >
          {versions.map((v) => (
            <option key={v.invocation_id} value={v.invocation_id}>
              Version {v.sibling_index} of {versions.length}
              {v.label ? ` — ${v.label}` : ""}
            </option>
          ))}
        </select>
        {turn.current && (
          <span className="rounded-full bg-blue-50 px-2 py-0.5 text-xs text-blue-800 dark:bg-blue-950 dark:text-blue-200">Shown now</span>
        )}
      </div>
      <p className="text-xs text-zinc-500 dark:text-zinc-400" data-testid="compare-facts">
        {[facts, clockTime(turn.timestamp), took && `took ${took}`].filter(Boolean).join(" · ")}
      </p>
      {showUserText && (
        <p className="rounded-md bg-zinc-100 px-2 py-1 text-sm dark:bg-zinc-800">
          <span className="sr-only">You said: </span>
          {task?.history?.[0] ? messageText(task.history[0]) : turn.text}
        </p>
      )}
      <div className="min-h-16 flex-1">
        {task === undefined ? (
          <p className="text-sm text-zinc-500">Loading…</p>
        ) : pieces === null ? (
          <p className="text-sm text-zinc-500 italic">No reply</p>
        ) : (
          <Pieces pieces={pieces} />
        )}
      </div>
      <Button variant="outline" className="self-start touch:min-h-11" disabled={busy} onClick={onKeep}>
        Keep this version
      </Button>
    </section>
  );
}

/**
 * Two versions of a turn side by side (stacked on a phone): each reply with the words it does not share with the
 * other marked, its model, tokens and time. "Keep this version" shows that version — the switch the pager makes,
 * undoable from its toast.
 */
export function CompareDialog({
  sessionId,
  invocationId,
  busy,
  onClose,
  onKeep,
}: {
  sessionId: string;
  invocationId: string;
  busy: boolean;
  onClose: () => void;
  onKeep: (invocationId: string) => void;
}) {
  const tree = useTreeQuery(sessionId, true);
  const [picked, setPicked] = useState<Pair | null>(null);
  const turns = tree.data?.turns ?? [];
  const pair = picked ?? (tree.data ? openingPair(turns, invocationId) : null);
  const compared = useQuery({
    queryKey: pair ? queryKeys.compare(sessionId, ...pair) : ["compare"],
    queryFn: () =>
      api<{ a: Task | null; b: Task | null }>(
        `/api/sessions/${encodeURIComponent(sessionId)}/versions/compare?${new URLSearchParams({ a: pair![0], b: pair![1] })}`,
      ),
    enabled: pair !== null,
  });
  const versions = pair ? versionsOf(turns, pair[0]) : [];
  const [left, right] = pair ? pair.map((id) => turns.find((t) => t.invocation_id === id)) : [];
  const tasks = compared.data ? [compared.data.a, compared.data.b] : [undefined, undefined];
  const texts = tasks.map((task) => (task ? replyText(task.history?.slice(1) ?? []) : null));
  const diff = texts[0] !== null && texts[1] !== null ? wordDiff(texts[0], texts[1]) : null;
  const pieces = (i: 0 | 1) =>
    texts[i] === null ? null : diff ? diff[i === 0 ? "left" : "right"] : [{ text: texts[i] as string, change: "same" as const }];
  const showUserText = Boolean(left && right && left.text !== right.text);
  const error = tree.error ?? compared.error;
  return (
    <Dialog.Root open onOpenChange={(open) => !open && onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
        <Dialog.Content
          onCloseAutoFocus={(event) => {
            event.preventDefault();
            focusComparedTurn(invocationId);
          }}
          className="fixed inset-0 z-50 flex flex-col bg-white shadow-xl sm:inset-x-[max(1.5rem,calc(50vw-36rem))] sm:inset-y-6 sm:rounded-xl dark:bg-zinc-950"
        >
          <SheetHeader title="Compare versions" />
          <Dialog.Description className="px-4 pt-3 text-xs text-zinc-500">
            Two versions of this turn side by side: words only one of them has are marked. Keep one to show it with its state and files; you
            can undo that.
          </Dialog.Description>
          <div className="min-h-0 flex-1 overflow-y-auto p-4">
            {error ? (
              <p role="alert" className="text-sm text-red-600 dark:text-red-400">
                {error.message}
              </p>
            ) : !tree.data ? (
              <p className="text-sm text-zinc-500">Loading…</p>
            ) : !pair || !left || !right ? (
              <p className="text-sm text-zinc-500">This turn has no other version to compare it with.</p>
            ) : (
              <div className={cn("grid grid-cols-1 gap-3 sm:grid-cols-2")}>
                {([0, 1] as const).map((i) => (
                  <Side
                    key={i}
                    side={i === 0 ? "Left" : "Right"}
                    turn={i === 0 ? left : right}
                    versions={versions}
                    task={tasks[i]}
                    pieces={pieces(i)}
                    showUserText={showUserText}
                    busy={busy}
                    onPick={(id) => setPicked(i === 0 ? [id, pair[1]] : [pair[0], id])}
                    onKeep={() => onKeep(pair[i])}
                  />
                ))}
              </div>
            )}
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
