"use client";

import { X } from "lucide-react";
import { Dialog } from "radix-ui";
import { useId, useRef } from "react";
import { Button } from "../ui/button";
import { cn } from "../ui/cn";

/** A centred dialog with a title, a one-line description and a Close button; a sheet from the bottom on phones. */
export function Modal({
  open,
  onOpenChange,
  title,
  description,
  returnFocus,
  children,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: string;
  /** Where focus goes when it closes; by default, back to what had it when it opened. */
  returnFocus?: () => void;
  children: React.ReactNode;
}) {
  // Opened by a plain button (not a Radix trigger): Radix would hand focus back to the body when it closes.
  const opener = useRef<HTMLElement | null>(null);
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-black/40" />
        <Dialog.Content
          onOpenAutoFocus={(event) => {
            opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
            // Straight to the first field (not the Close button) when the dialog is a form.
            const field = (event.currentTarget as HTMLElement).querySelector("input");
            if (!field) return;
            event.preventDefault();
            field.focus();
          }}
          onCloseAutoFocus={(event) => {
            if (!returnFocus && !opener.current?.isConnected) return;
            event.preventDefault();
            (returnFocus ?? (() => opener.current?.focus()))();
          }}
          className={cn(
            "fixed z-50 flex max-h-[90dvh] flex-col overflow-y-auto bg-white shadow-xl dark:bg-zinc-900",
            "inset-x-0 bottom-0 rounded-t-2xl p-5 sm:inset-x-auto sm:bottom-auto sm:top-1/2 sm:left-1/2 sm:w-[min(92vw,440px)] sm:-translate-x-1/2 sm:-translate-y-1/2 sm:rounded-xl",
          )}
        >
          <div className="flex items-start justify-between gap-3">
            <div>
              <Dialog.Title className="text-base font-semibold">{title}</Dialog.Title>
              <Dialog.Description className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{description}</Dialog.Description>
            </div>
            <Dialog.Close asChild>
              <Button aria-label="Close" className="-mt-1 -mr-2 p-2 touch:size-11">
                <X className="size-4" aria-hidden />
              </Button>
            </Dialog.Close>
          </div>
          {children}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

/** A labelled text input. */
export function Field({
  label,
  type = "text",
  value,
  onChange,
  autoComplete,
  hint,
  required = true,
}: {
  label: string;
  type?: string;
  value: string;
  onChange: (value: string) => void;
  autoComplete?: string;
  hint?: string;
  required?: boolean;
}) {
  const id = useId();
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      <input
        id={id}
        type={type}
        value={value}
        required={required}
        autoComplete={autoComplete}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onChange={(e) => onChange(e.target.value)}
        className="w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm outline-none focus-visible:border-blue-500 focus-visible:ring-2 focus-visible:ring-blue-500/30 touch:py-3 dark:border-zinc-700 dark:bg-zinc-950"
      />
      {hint && (
        <p id={`${id}-hint`} className="text-xs text-zinc-500 dark:text-zinc-400">
          {hint}
        </p>
      )}
    </div>
  );
}

/** What went wrong, read out by screen readers as it appears. */
export function FormError({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700 dark:bg-red-950/50 dark:text-red-300">
      {message}
    </p>
  );
}
