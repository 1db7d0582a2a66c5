"use client";

import { useSyncExternalStore } from "react";

/** The `touch:` variant's test (app/globals.css): a screen that cannot hover, a phone or tablet. */
const TOUCH = "(hover: none)";

function subscribe(onChange: () => void) {
  const query = window.matchMedia(TOUCH);
  query.addEventListener("change", onChange);
  return () => query.removeEventListener("change", onChange);
}

/** Whether the screen is a touch screen (false on the server and while hydrating). */
export function useTouch() {
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia(TOUCH).matches,
    () => false,
  );
}
