"use client";

import { X } from "lucide-react";
import { useEffect, useEffectEvent, useRef, useState } from "react";
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

/** The Undo toasts on screen, by what they belong to (a chat), so leaving it takes them away. */
const scopes = new Map<string, Set<string | number>>();

/**
 * A toast offering Undo for ≥ 10 s; its clock stops while the pointer is on it or focus is in it. `onClose`
 * runs once if it goes without Undo (time, Close, a swipe, `dismissUndos`); `extra` adds a control beside Undo.
 */
export function notifyUndo(opts: {
  title: string;
  description?: string;
  onUndo: () => void;
  onClose?: () => void;
  scope?: string;
  extra?: React.ReactNode;
}) {
  const { scope, onUndo, onClose } = opts;
  let settled = false;
  let id: string | number = "";
  const settle = (undone: boolean) => {
    if (settled) return;
    settled = true;
    if (scope) scopes.get(scope)?.delete(id);
    if (undone) onUndo();
    else onClose?.();
  };
  id = toast.custom(
    (toastId) => (
      <UndoToast
        title={opts.title}
        description={opts.description}
        extra={opts.extra}
        onClose={(undone) => {
          settle(undone);
          toast.dismiss(toastId);
        }}
      />
    ),
    { duration: Number.POSITIVE_INFINITY, onDismiss: () => settle(false) },
  );
  if (scope) scopes.set(scope, (scopes.get(scope) ?? new Set()).add(id));
}

/** Takes away the Undo toasts of `scope`: their Undo would change what the user has left. */
export function dismissUndos(scope: string) {
  for (const id of scopes.get(scope) ?? []) toast.dismiss(id);
  scopes.delete(scope);
}

function UndoToast({
  title,
  description,
  extra,
  onClose,
}: {
  title: string;
  description?: string;
  extra?: React.ReactNode;
  onClose: (undone: boolean) => void;
}) {
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const remaining = useRef(UNDO_MS);
  const paused = hovered || focused;
  const expire = useEffectEvent(() => onClose(false));
  useEffect(() => {
    if (paused) return;
    const started = Date.now();
    const timer = setTimeout(expire, remaining.current);
    return () => {
      clearTimeout(timer);
      remaining.current -= Date.now() - started;
    };
  }, [paused]);
  return (
    <div
      role="status"
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
      onFocus={() => setFocused(true)}
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget)) setFocused(false);
      }}
      className="w-full rounded-lg border border-zinc-200 bg-white p-4 text-sm text-zinc-900 shadow-lg dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100"
    >
      <div className="flex items-start gap-3">
        <div className="min-w-0 flex-1">
          <p className="font-medium">{title}</p>
          {description && <p className="mt-0.5 text-zinc-600 dark:text-zinc-400">{description}</p>}
        </div>
        <Button aria-label="Close" className="-mt-1 -mr-1 p-1.5 touch:size-11" onClick={() => onClose(false)}>
          <X className="size-4" aria-hidden />
        </Button>
      </div>
      <div className="mt-3 flex justify-end gap-2">
        {extra}
        <Button variant="primary" className="touch:min-h-11" onClick={() => onClose(true)}>
          Undo
        </Button>
      </div>
    </div>
  );
}
