"use client";

import { useSyncExternalStore } from "react";

function subscribe(onChange: () => void) {
  window.addEventListener("online", onChange);
  window.addEventListener("offline", onChange);
  return () => {
    window.removeEventListener("online", onChange);
    window.removeEventListener("offline", onChange);
  };
}

/** Whether the browser has a network connection (true on the server and while hydrating). */
export function useOnline() {
  return useSyncExternalStore(
    subscribe,
    () => navigator.onLine,
    () => true,
  );
}

/**
 * Resolves once it is worth trying the server again: when the browser is back online, else after a
 * back-off that doubles with each attempt (the server itself may have been out of reach), up to 8 s.
 */
export function backOnline(attempt: number): Promise<void> {
  return new Promise((resolve) => {
    if (navigator.onLine) setTimeout(resolve, Math.min(500 * 2 ** attempt, 8_000));
    else window.addEventListener("online", () => resolve(), { once: true });
  });
}
