"use client";

import { X } from "lucide-react";
import { Dialog } from "radix-ui";
import { Button } from "./button";

/** A side sheet's title bar: its name and a Close button (44 px on touch). */
export function SheetHeader({ title }: { title: string }) {
  return (
    <div className="flex items-center justify-between border-b border-zinc-200 py-1.5 pr-1.5 pl-4 dark:border-zinc-800">
      <Dialog.Title className="text-sm font-semibold">{title}</Dialog.Title>
      <Dialog.Close asChild>
        <Button aria-label="Close" className="p-2 touch:size-11">
          <X className="size-4" aria-hidden />
        </Button>
      </Dialog.Close>
    </div>
  );
}
