"use client";

import { useSyncExternalStore } from "react";

const noSubscription = () => () => {};

/** False while the server's HTML is being hydrated (and on the server), true from the first client render after it. */
export function useHydrated() {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}
