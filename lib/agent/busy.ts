import { SessionBusyError } from "@/lib/errors";

// On globalThis so every Next.js bundle (route handlers, server actions) sees the same turns.
const holder = globalThis as typeof globalThis & { __retraceBusy?: Set<string> };
holder.__retraceBusy ??= new Set<string>();
const running = holder.__retraceBusy;

/** Marks a session as running a turn; returns the release function. */
export function markBusy(sessionId: string): () => void {
  if (running.has(sessionId)) throw new SessionBusyError();
  running.add(sessionId);
  return () => running.delete(sessionId);
}

export function isBusy(sessionId: string): boolean {
  return running.has(sessionId);
}
