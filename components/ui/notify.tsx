"use client";

import { X } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import { Button } from "./button";
import { readableError } from "./readable-error";

/** How long an Undo stays on screen, not counting the time it is hovered or focused. */
const UNDO_MS = 10_000;

/** The one way failures reach the user: a toast with a message a person can read. */
export function notifyError(error: unknown) {
  toast.error(readableError(error));
}

export function notifySuccess(title: string) {
  toast.success(title);
}

export function notifyInfo(title: string) {
  toast.info(title);
}

/** A toast offering Undo for ≥ 10 s; its clock stops while the pointer is on it or focus is in it. */
export function notifyUndo(opts: { title: string; description?: string; onUndo: () => void }) {
  toast.custom((id) => <UndoToast id={id} {...opts} />, { duration: Number.POSITIVE_INFINITY });
}

function UndoToast({ id, title, description, onUndo }: { id: string | number; title: string; description?: string; onUndo: () => void }) {
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const remaining = useRef(UNDO_MS);
  const paused = hovered || focused;
  useEffect(() => {
    if (paused) return;
    const started = Date.now();
    const timer = setTimeout(() => toast.dismiss(id), remaining.current);
    return () => {
      clearTimeout(timer);
      remaining.current -= Date.now() - started;
    };
  }, [paused, id]);
  return (
    <div
      role="status"
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
      onFocus={() => setFocused(true)}
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget)) setFocused(false);
      }}
      className="flex w-full items-center gap-3 rounded-lg border border-zinc-200 bg-white p-4 text-sm text-zinc-900 shadow-lg dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100"
    >
      <div className="min-w-0 flex-1">
        <p className="font-medium">{title}</p>
        {description && <p className="mt-0.5 text-zinc-600 dark:text-zinc-400">{description}</p>}
      </div>
      <Button
        variant="primary"
        className="touch:min-h-11"
        onClick={() => {
          toast.dismiss(id);
          onUndo();
        }}
      >
        Undo
      </Button>
      <Button aria-label="Close" className="touch:size-11 p-1.5" onClick={() => toast.dismiss(id)}>
        <X className="size-4" aria-hidden />
      </Button>
    </div>
  );
}
