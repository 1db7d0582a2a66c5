"use client";

import { MoreHorizontal } from "lucide-react";
import { cn } from "../../ui/cn";
import { CopyButton } from "../../ui/copy-button";

/** A message action's target: compact for a mouse, at least 44 px on touch screens. */
const actionClass = cn(
  "inline-flex size-7 items-center justify-center rounded-md text-zinc-500 touch:size-11",
  "hover:bg-zinc-100 hover:text-zinc-900 dark:hover:bg-zinc-800 dark:hover:text-zinc-100",
  "focus-visible:outline-2 focus-visible:outline-blue-500 disabled:opacity-30",
);

/**
 * The row under a message: Copy and its menu, and the version pager when the turn has versions. With a
 * mouse the actions show on hover or focus; touch screens cannot hover, so there they are always shown.
 * The pager is always shown, on the message's outer edge, since it says there is more to see.
 */
export function ActionsRow({
  align = "start",
  pager,
  children,
}: {
  align?: "start" | "end";
  pager?: React.ReactNode;
  children: React.ReactNode;
}) {
  return (
    <div
      className={cn(
        "flex items-center gap-0.5",
        // Pulls the outer icon in line with the message's edge (the targets are wider than the icons).
        align === "end" ? "-mr-1.5 justify-end touch:-mr-3" : "-ml-1.5 touch:-ml-3",
      )}
    >
      {align === "start" && pager}
      <div
        className={cn(
          "flex items-center gap-0.5 opacity-0 transition-opacity touch:opacity-100",
          "group-hover:opacity-100 group-focus-within:opacity-100 has-data-[state=open]:opacity-100",
        )}
      >
        {children}
      </div>
      {align === "end" && pager}
    </div>
  );
}

/**
 * Which message a button acts on, in its accessible name: a screen reader's list of buttons otherwise reads
 * "Message actions" and "Copy" over and over. E.g. `“set color to red”`, `the reply to “set color to red”`.
 */
export function about(userText: string, reply = false) {
  const words = userText.replace(/\s+/g, " ").trim();
  const quoted = `“${words.length > 40 ? `${words.slice(0, 40).trimEnd()}…` : words}”`;
  return reply ? `the reply to ${quoted}` : quoted;
}

export function CopyAction({ text, of }: { text: () => string; of: string }) {
  return <CopyButton text={text} label={`Copy ${of}`} className={actionClass} />;
}

/** The "Message actions" menu trigger, named for its message (Radix passes its props and ref through). */
export function ActionsButton({ of, ...props }: React.ButtonHTMLAttributes<HTMLButtonElement> & { of: string }) {
  return (
    <button type="button" aria-label={`Message actions for ${of}`} className={actionClass} {...props}>
      <MoreHorizontal className="size-4" aria-hidden />
    </button>
  );
}
