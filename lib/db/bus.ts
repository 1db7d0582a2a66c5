/**
 * How app instances tell each other about running turns (docs/semantics.md, "Turns"): streamed text
 * for watchers on other instances, "the task changed", "please stop". In-process on SQLite (one
 * process serves everything); LISTEN/NOTIFY on PostgreSQL (postgres-bus.ts).
 */
export type BusMessage =
  /** Text streamed since the turn's last stored message (`epoch` counts those), starting at `offset`. */
  | { kind: "partial"; epoch: number; offset: number; text: string }
  /** The task was stored again: a new message, a new status, or its end. */
  | { kind: "changed" }
  /** Someone asked the turn to stop. */
  | { kind: "cancel" }
  /**
   * A watcher on another instance: from then on the running instance puts its updates on the bus, and
   * answers with "changed" and the text streamed so far.
   */
  | { kind: "hello" };

export interface TurnBus {
  publish(taskId: string, message: BusMessage): Promise<void>;
  /** False while messages from other instances cannot arrive (PostgreSQL's LISTEN connection is being reconnected). */
  listening(): boolean;
  /** Listens to one task's messages; returns the function that stops listening. */
  subscribe(taskId: string, listener: (message: BusMessage) => void): () => void;
  close(): Promise<void>;
}

/** Listeners by task id: the part of a bus both implementations share. */
export function listeners() {
  const byTask = new Map<string, Set<(message: BusMessage) => void>>();
  return {
    add(taskId: string, listener: (message: BusMessage) => void) {
      const set = byTask.get(taskId) ?? new Set();
      set.add(listener);
      byTask.set(taskId, set);
      return () => {
        set.delete(listener);
        if (set.size === 0) byTask.delete(taskId);
      };
    },
    dispatch(taskId: string, message: BusMessage) {
      for (const listener of byTask.get(taskId) ?? []) listener(message);
    },
  };
}

export function localBus(): TurnBus {
  const registry = listeners();
  return {
    async publish(taskId, message) {
      queueMicrotask(() => registry.dispatch(taskId, message));
    },
    subscribe: registry.add,
    listening: () => true,
    async close() {},
  };
}
