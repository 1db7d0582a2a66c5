"use client";

import { Globe } from "lucide-react";
import { AlertDialog } from "radix-ui";
import { useRef, useState } from "react";
import { Button } from "../../ui/button";
import { plural } from "../turn/turn-rows";

/**
 * Asks before a rewind hides calls that acted in the world: the rewind restores the chat, not the world
 * (docs/semantics.md, "Tools"). Resolves at once when there are none; the rewind itself stays undoable.
 */
export function useEffectsWarning() {
  const [count, setCount] = useState(0);
  const answer = useRef<((go: boolean) => void) | null>(null);
  const close = (go: boolean) => {
    answer.current?.(go);
    answer.current = null;
    setCount(0);
  };
  const confirm = (n: number): Promise<boolean> => {
    if (n === 0) return Promise.resolve(true);
    setCount(n);
    return new Promise((resolve) => {
      answer.current = resolve;
    });
  };
  const dialog = (
    <AlertDialog.Root open={count > 0} onOpenChange={(open) => !open && close(false)}>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="fixed inset-0 z-50 bg-black/40" />
        <AlertDialog.Content className="fixed inset-x-0 bottom-0 z-50 rounded-t-2xl bg-white p-5 shadow-xl sm:inset-x-auto sm:bottom-auto sm:top-1/2 sm:left-1/2 sm:w-[min(92vw,440px)] sm:-translate-x-1/2 sm:-translate-y-1/2 sm:rounded-xl dark:bg-zinc-900">
          <AlertDialog.Title className="flex items-center gap-2 text-base font-semibold">
            <Globe className="size-4" aria-hidden />
            {plural(count, "action")} done in the world will not be undone
          </AlertDialog.Title>
          <AlertDialog.Description className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">
            The rewind brings back this chat's messages, state and files. What its tools did outside the chat stays done.
          </AlertDialog.Description>
          <div className="mt-4 flex justify-end gap-2">
            <AlertDialog.Cancel asChild>
              <Button variant="outline" className="px-3 py-1.5 touch:min-h-11">
                Cancel
              </Button>
            </AlertDialog.Cancel>
            <AlertDialog.Action asChild>
              <Button variant="primary" className="px-3 py-1.5 touch:min-h-11" onClick={() => close(true)}>
                Continue
              </Button>
            </AlertDialog.Action>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
  return { confirm, dialog };
}
