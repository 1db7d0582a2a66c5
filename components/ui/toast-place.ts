"use client";

import { useSyncExternalStore } from "react";

/**
 * Where toasts sit. At the top, below the chat's header, by default; while a sheet covers the whole chat (the
 * map), at the bottom instead, `bottom` pixels up: above what that sheet keeps at its foot, and off its header
 * and the branch it opens on.
 */
let bottom: number | null = null;
const listeners = new Set<() => void>();

export function placeToastsAbove(pixels: number | null) {
  if (bottom === pixels) return;
  bottom = pixels;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The toasts' distance from the bottom of the screen while a sheet keeps them there, else null (at the top). */
export function useToastsAbove() {
  return useSyncExternalStore(
    subscribe,
    () => bottom,
    () => null,
  );
}

/**
 * How far below the scroller's top the toasts reach (a switch's Undo, say), and a margin: a turn brought into
 * view lands below them. Measured without transforms, so a toast still sliding in counts at its full height.
 */
export function belowToasts(scroller: HTMLElement): number {
  let bottom = 0;
  for (const toaster of document.querySelectorAll<HTMLElement>("[data-sonner-toaster]")) {
    const heights = [...toaster.querySelectorAll<HTMLElement>("[data-sonner-toast]")].map((t) => t.offsetHeight);
    if (heights.length > 0) bottom = Math.max(bottom, toaster.getBoundingClientRect().top + Math.max(...heights));
  }
  return bottom === 0 ? 0 : Math.max(0, Math.ceil(bottom - scroller.getBoundingClientRect().top) + 12);
}

/** Calls `changed` as toasts come, go or change, until the returned function is called: sonner's region only, not the page. */
export function watchToasts(changed: () => void): () => void {
  const observer = new MutationObserver(changed);
  observer.observe(document.querySelector('section[aria-label^="Notifications"]') ?? document.body, { childList: true, subtree: true });
  return () => observer.disconnect();
}
