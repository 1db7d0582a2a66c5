"use client";

import { ChevronLeft, ChevronRight, Columns2 } from "lucide-react";
import { useEffect, useRef } from "react";
import { cn } from "../../ui/cn";
import { Menu, MenuItem } from "../../ui/menu";
import type { Siblings } from "../turn/turn-rows";

const arrowClass = cn(
  "inline-flex size-7 items-center justify-center rounded-md text-zinc-500 touch:size-11",
  "hover:bg-zinc-100 hover:text-zinc-900 dark:hover:bg-zinc-800 dark:hover:text-zinc-100",
  "focus-visible:outline-2 focus-visible:outline-blue-500 disabled:pointer-events-none disabled:opacity-30",
);

const ARROWS = ["Previous version", "Next version"] as const;
type Arrow = (typeof ARROWS)[number];

/** The pager to focus once it shows, enabled, after a switch: its turn's row is new, so are its buttons. */
let focusAfterSwitch: { invocationId: string; button: Arrow } | null = null;

export function focusPagerAfterSwitch(request: typeof focusAfterSwitch) {
  focusAfterSwitch = request;
}

/**
 * `‹ 2 / 3 ›` on a turn with other versions: each arrow shows the branch of the
 * version beside it. Always visible, unlike the hover actions, because it tells the reader there is more.
 */
export function VersionPager({
  siblings,
  disabled,
  onSwitch,
  onCompare,
}: {
  siblings: Siblings;
  disabled: boolean;
  onSwitch: (invocationId: string, button: Arrow) => void;
  /** Opens the versions side by side, from the one shown. */
  onCompare: (invocationId: string) => void;
}) {
  const { index, invocationIds } = siblings;
  const shown = invocationIds[index - 1];
  const group = useRef<HTMLFieldSetElement>(null);
  useEffect(() => {
    const request = focusAfterSwitch;
    if (disabled || request?.invocationId !== shown || !group.current) return;
    const arrows = [...group.current.querySelectorAll<HTMLButtonElement>("button:not(:disabled)")].filter((b) =>
      ARROWS.includes(b.getAttribute("aria-label") as Arrow),
    );
    // The arrow that was pressed, or the other one when this version is at the end it pointed to (never the
    // count's menu between them); after the frame, since the chat hands focus back to the composer when the switch ends.
    const target = arrows.find((b) => b.getAttribute("aria-label") === request.button) ?? arrows[0];
    requestAnimationFrame(() => target?.focus());
    focusAfterSwitch = null;
  }, [disabled, shown]);
  return (
    <fieldset
      ref={group}
      aria-label={`Version ${index} of ${invocationIds.length}`}
      data-testid="version-pager"
      data-versions={invocationIds.join(" ")}
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
      {/* The count opens the pager's menu. */}
      <Menu
        align="start"
        trigger={
          <button
            type="button"
            aria-label="Version menu"
            className="rounded-md px-1 py-0.5 hover:bg-zinc-100 hover:text-zinc-900 focus-visible:outline-2 focus-visible:outline-blue-500 touch:min-h-11 dark:hover:bg-zinc-800 dark:hover:text-zinc-100"
          >
            {index} / {invocationIds.length}
          </button>
        }
      >
        <MenuItem icon={<Columns2 className="size-4" />} description="See two versions side by side" onSelect={() => onCompare(shown)}>
          Compare versions
        </MenuItem>
      </Menu>
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
