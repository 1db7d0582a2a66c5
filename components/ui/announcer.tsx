"use client";

import { useSyncExternalStore } from "react";

let said = "";
const listeners = new Set<() => void>();

/** Has a screen reader say `text` (politely: after what it is reading). */
export function speak(text: string) {
  said = text;
  for (const listener of listeners) listener();
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

/**
 * The page's one polite live region, outside every route, so what is said survives the page that said it
 * (a new chat's first reply ends as its own page replaces it).
 */
export function Announcer() {
  const text = useSyncExternalStore(
    subscribe,
    () => said,
    () => "",
  );
  return (
    <div aria-live="polite" aria-atomic="true" className="sr-only" data-testid="announcer">
      {text}
    </div>
  );
}
