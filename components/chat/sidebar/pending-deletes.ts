"use client";

import { useSyncExternalStore } from "react";

/**
 * Chats deleted on screen whose DELETE has not gone out yet: Delete hides a chat at once and offers Undo,
 * and only when that offer closes is the chat deleted on the server (deleting is final there). A tab that
 * goes away first sends them with `keepalive`, which outlives the page.
 */
let pending: ReadonlySet<string> = new Set();
const listeners = new Set<() => void>();

function set(next: Set<string>) {
  pending = next;
  for (const listener of listeners) listener();
}

function sendOnLeave() {
  for (const id of pending) void fetch(`/api/sessions/${encodeURIComponent(id)}`, { method: "DELETE", keepalive: true });
}

export function hideChat(id: string) {
  if (pending.size === 0) window.addEventListener("pagehide", sendOnLeave);
  set(new Set(pending).add(id));
}

/** The chat is shown again: its delete was undone, or has gone out (then the list no longer has it anyway). */
export function unhideChat(id: string) {
  const next = new Set(pending);
  next.delete(id);
  if (next.size === 0) window.removeEventListener("pagehide", sendOnLeave);
  set(next);
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

/** The ids of the chats hidden until their delete goes out. */
export function useHiddenChats(): ReadonlySet<string> {
  return useSyncExternalStore(
    subscribe,
    () => pending,
    () => pending,
  );
}
