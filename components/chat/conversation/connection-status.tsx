"use client";

import { WifiOff } from "lucide-react";
import { useOnline } from "../../ui/use-online";

/** Says the browser is offline, and what happens meanwhile: nothing typed is lost; Send works again once back online. */
export function ConnectionStatus() {
  const online = useOnline();
  if (online) return null;
  return (
    <p
      role="status"
      className="mx-auto mb-2 flex w-full max-w-3xl items-center gap-2 rounded-lg border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200"
    >
      <WifiOff className="size-4 shrink-0" aria-hidden />
      You're offline. What you type stays here: send it once you're back.
    </p>
  );
}
