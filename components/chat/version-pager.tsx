"use client";

import { ChevronLeft, ChevronRight } from "lucide-react";
import { cn } from "../ui/cn";
import type { Siblings } from "./turn-rows";

const arrowClass = cn(
  "inline-flex size-7 items-center justify-center rounded-md text-zinc-500 touch:size-11",
  "hover:bg-zinc-100 hover:text-zinc-900 dark:hover:bg-zinc-800 dark:hover:text-zinc-100",
  "focus-visible:outline-2 focus-visible:outline-blue-500 disabled:pointer-events-none disabled:opacity-30",
);

/**
 * `‹ 2 / 3 ›` on a turn with other versions (SPEC §3 "Version pager"): each arrow shows the branch of the
 * version beside it. Always visible, unlike the hover actions, because it tells the reader there is more.
 */
export function VersionPager({
  siblings,
  disabled,
  onSwitch,
}: {
  siblings: Siblings;
  disabled: boolean;
  onSwitch: (invocationId: string, button: "Previous version" | "Next version") => void;
}) {
  const { index, invocationIds } = siblings;
  return (
    <fieldset
      aria-label={`Version ${index} of ${invocationIds.length}`}
      data-testid="version-pager"
      data-versions-of={invocationIds[index - 1]}
      className="m-0 flex min-w-0 items-center border-0 p-0 text-xs text-zinc-500 tabular-nums dark:text-zinc-400"
    >
      <button
        type="button"
        aria-label="Previous version"
        className={arrowClass}
        disabled={disabled || index <= 1}
        onClick={() => onSwitch(invocationIds[index - 2], "Previous version")}
      >
        <ChevronLeft className="size-4" aria-hidden />
      </button>
      <span aria-hidden>
        {index} / {invocationIds.length}
      </span>
      <button
        type="button"
        aria-label="Next version"
        className={arrowClass}
        disabled={disabled || index >= invocationIds.length}
        onClick={() => onSwitch(invocationIds[index], "Next version")}
      >
        <ChevronRight className="size-4" aria-hidden />
      </button>
    </fieldset>
  );
}
