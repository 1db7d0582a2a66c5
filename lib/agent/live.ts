/**
 * Running turns as others see them: following one from any app instance (a reloaded page, A2A
 * resubscribe), and stopping one wherever it runs (docs/semantics.md, "Turns").
 */
import { randomUUID } from "node:crypto";
import { agentNote } from "@/lib/a2a/convert";
import { invocationIdOf } from "@/lib/a2a/metadata";
import type { Message, Task } from "@/lib/a2a/types";
import { getDb } from "@/lib/db/client";
import { getTask, requestCancel, runningTurnOf } from "@/lib/db/queries";

export type TurnUpdate =
  | { kind: "task"; task: Task }
  /** A streamed text chunk: shown live, never stored. */
  | { kind: "partial"; message: Message }
  /** A persisted event, exactly as it is in the task's history. */
  | { kind: "message"; message: Message }
  | { kind: "done"; task: Task };

/** This process, as the owner recorded on the sessions whose turns it runs. */
export const INSTANCE = randomUUID();

/** How often a watcher of another instance's turn re-reads it, in case a notification was lost. */
const FOLLOW_POLL_MS = 2_000;
/** How long a cancel waits for another instance's turn to end before answering with the task as it is. */
const CANCEL_WAIT_MS = 5_000;

const FINAL = new Set(["completed", "canceled", "failed", "rejected"]);
const isFinal = (task: Task) => FINAL.has(task.status.state);

/** A small unbounded queue: the turn runs on its own; readers may stop listening without stopping it. */
export function channel<T>() {
  const items: T[] = [];
  let wake: (() => void) | null = null;
  let closed = false;
  return {
    push(item: T) {
      if (closed) return;
      items.push(item);
      wake?.();
    },
    close() {
      closed = true;
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const next = items.shift();
        if (next !== undefined) yield next;
        else if (closed) return;
        else
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        wake = null;
      }
    },
  };
}
type Channel<T> = ReturnType<typeof channel<T>>;

export function partialMessage(task: Task, text: string): Message {
  return agentNote(text, task.contextId, task.id, {
    kagent_invocation_id: invocationIdOf(task),
    kagent_author: task.metadata?.kagent_agent,
    adk_partial: true,
  });
}

/** A turn this process runs. */
export interface LocalTurn {
  controller: AbortController;
  done: Promise<Task>;
  /** The task so far and the text streamed since its last stored message: where a late watcher starts. */
  snapshot(): { task: Task; partial: string };
  watchers: Set<Channel<TurnUpdate>>;
}

// On globalThis so every Next.js bundle (route handlers, server actions) sees the same turns.
const holder = globalThis as typeof globalThis & { __retraceTurns?: Map<string, LocalTurn> };
holder.__retraceTurns ??= new Map();
export const localTurns = holder.__retraceTurns;

function watchLocal(turn: LocalTurn): AsyncIterable<TurnUpdate> {
  const watcher = channel<TurnUpdate>();
  const { task, partial } = turn.snapshot();
  watcher.push({ kind: "task", task: structuredClone(task) });
  if (partial) watcher.push({ kind: "partial", message: partialMessage(task, partial) });
  turn.watchers.add(watcher);
  return watcher;
}

/**
 * Reassembles streamed text that arrives in pieces, possibly out of order (a live piece can overtake
 * the snapshot a new watcher asked for): returns the text that just became contiguous.
 */
function streamedText() {
  let epoch = -1;
  let value = "";
  let early = new Map<number, string>();
  return {
    add(piece: { epoch: number; offset: number; text: string }): string {
      if (piece.epoch < epoch) return "";
      if (piece.epoch > epoch) {
        epoch = piece.epoch;
        value = "";
        early = new Map();
      }
      early.set(piece.offset, piece.text);
      const before = value.length;
      for (let grew = true; grew; ) {
        grew = false;
        for (const [offset, chunk] of early) {
          if (offset > value.length) continue;
          early.delete(offset);
          if (offset + chunk.length > value.length) {
            value += chunk.slice(value.length - offset);
            grew = true;
          }
        }
      }
      return value.slice(before);
    },
  };
}

/** Follows a turn another instance runs: its stored task, then streamed text and stored changes from the bus. */
async function watchRemote(userId: string, first: Task): Promise<AsyncIterable<TurnUpdate>> {
  const { bus } = await getDb();
  const watcher = channel<TurnUpdate>();
  let shown = first.history?.length ?? 0;
  const text = streamedText();
  let reloading = Promise.resolve();
  const stop = () => {
    clearInterval(poll);
    unsubscribe();
    watcher.close();
  };
  const reload = () => {
    reloading = reloading.then(async () => {
      const task = await getTask(userId, first.id).catch(() => null);
      if (!task) return stop();
      for (const message of task.history?.slice(shown) ?? []) watcher.push({ kind: "message", message });
      shown = task.history?.length ?? shown;
      if (isFinal(task)) {
        watcher.push({ kind: "done", task });
        stop();
      }
    });
  };
  // The running instance publishes only once it has heard a hello (lib/agent/runtime.ts): until it
  // answers, every poll says hello again, so one lost notification cannot leave this watcher on polls.
  let answered = false;
  const unsubscribe = bus.subscribe(first.id, (message) => {
    if (message.kind === "changed" || message.kind === "partial") answered = true;
    if (message.kind === "changed") reload();
    if (message.kind !== "partial") return;
    const fresh = text.add(message);
    if (fresh) watcher.push({ kind: "partial", message: partialMessage(first, fresh) });
  });
  const poll = setInterval(() => {
    reload();
    if (!answered) void bus.publish(first.id, { kind: "hello" }).catch(() => undefined);
  }, FOLLOW_POLL_MS);
  watcher.push({ kind: "task", task: first });
  await bus.publish(first.id, { kind: "hello" });
  return watcher;
}

/**
 * Follows a running turn from now on, on whichever instance runs it: the task as it is, the text
 * streamed so far, then every later update up to the final one. Null when it is not running.
 */
export async function watchTurn(userId: string, taskId: string): Promise<AsyncIterable<TurnUpdate> | null> {
  const task = await getTask(userId, taskId);
  const local = localTurns.get(taskId);
  if (local) return watchLocal(local);
  if (isFinal(task) || !(await runningTurnOf(userId, taskId))) return null;
  return watchRemote(userId, task);
}

/** A turn that already started (a retried send): its updates from now on, and its end. */
export async function followTurn(userId: string, task: Task) {
  const updates = (await watchTurn(userId, task.id)) ?? [{ kind: "task", task } as const, { kind: "done", task } as const];
  const seen = channel<TurnUpdate>();
  const done = (async () => {
    let final = task;
    for await (const update of updates) {
      seen.push(update);
      if (update.kind === "done") final = update.task;
    }
    seen.close();
    return final;
  })();
  return { taskId: task.id, invocationId: invocationIdOf(task) ?? "", updates: seen, done };
}

/** Stops a running turn on any instance; resolves with its final task, or null when it is not running. */
export async function cancelTurn(userId: string, taskId: string): Promise<Task | null> {
  const local = localTurns.get(taskId);
  if (local) {
    await getTask(userId, taskId);
    local.controller.abort();
    return local.done;
  }
  const where = await runningTurnOf(userId, taskId);
  if (!where) return null;
  const { bus } = await getDb();
  let wake = () => {};
  const unsubscribe = bus.subscribe(taskId, (message) => {
    if (message.kind === "changed") wake();
  });
  try {
    await requestCancel(where.sessionId, taskId);
    await bus.publish(taskId, { kind: "cancel" });
    const deadline = Date.now() + CANCEL_WAIT_MS;
    for (;;) {
      const task = await getTask(userId, taskId);
      if (isFinal(task) || Date.now() > deadline) return task;
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 250);
      });
    }
  } finally {
    unsubscribe();
  }
}

/** Graceful shutdown: every turn of this process is interrupted (what streamed is kept) and its session released. */
export async function stopLocalTurns(timeoutMs = 10_000): Promise<void> {
  const turns = [...localTurns.values()];
  for (const turn of turns) turn.controller.abort();
  await Promise.race([Promise.allSettled(turns.map((t) => t.done)), new Promise((r) => setTimeout(r, timeoutMs))]);
}
