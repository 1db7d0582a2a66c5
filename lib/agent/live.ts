import "server-only";
/**
 * Running turns as others see them: following one from any app instance (a reloaded page, A2A
 * resubscribe), and stopping one wherever it runs (docs/semantics.md, "Turns").
 */
import { randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/connection";
import { getTask, getTaskAndTurn, requestCancel, requireTask, runningTurnOf } from "@/lib/db/queries";
import { agentNote } from "@/lib/task/convert";
import { invocationIdOf } from "@/lib/task/metadata";
import type { Message, Task } from "@/lib/task/types";
import { type Channel, channel } from "./channel";

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

/** States that end a turn's run: `input-required` too (it waits for the user's decision, holding nothing; a decision resumes it as a new run). */
const FINAL = new Set(["completed", "canceled", "failed", "rejected", "input-required"]);
const isFinal = (task: Task) => FINAL.has(task.status.state);

export function partialMessage(task: Task, text: string): Message {
  return agentNote(text, task.contextId, task.id, {
    kagent_invocation_id: invocationIdOf(task),
    kagent_author: task.metadata?.kagent_agent,
    adk_partial: true,
  });
}

/** A turn this process runs. */
export interface LocalTurn {
  /** Whose turn it is. */
  userId: string;
  controller: AbortController;
  done: Promise<Task>;
  /** The task so far and the text streamed since its last stored message: where a late watcher starts. */
  snapshot(): { task: Task; partial: string };
  watchers: Set<Channel<TurnUpdate>>;
}

// On globalThis so every Next.js bundle (route handlers, server actions) sees the same turns.
const perProcess = globalThis as typeof globalThis & { __retraceTurns?: Map<string, LocalTurn> };
perProcess.__retraceTurns ??= new Map();
export const localTurns = perProcess.__retraceTurns;

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
    /** The text of the current epoch, as far as it is contiguous. */
    value: () => value,
    epoch: () => epoch,
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

/**
 * Followers of turns other instances run, by user and task (only a task's owner gets one started), on
 * globalThis like localTurns: one per turn per instance. Null once the turn is known not to run.
 */
const followersHolder = globalThis as typeof globalThis & { __retraceFollowers?: Map<string, Promise<RemoteFollower | null>> };
followersHolder.__retraceFollowers ??= new Map();
const followers = followersHolder.__retraceFollowers;
const followerKey = (userId: string, taskId: string) => `${userId} ${taskId}`;

interface RemoteFollower {
  /** Adds a watcher: it gets the task as last read and the text streamed since, then every later update. */
  watch(watcher: Channel<TurnUpdate>): void;
}

/**
 * Follows a turn another instance runs for every watcher on this instance at once: one bus subscription,
 * one poll, one read of the task per change, however many watch (hundreds of A2A resubscribes cost what
 * one does). Ends when the turn does.
 */
async function followRemote(userId: string, first: Task): Promise<RemoteFollower> {
  const { bus } = await getDb();
  const watchers = new Set<Channel<TurnUpdate>>();
  let task = first;
  let shown = first.history?.length ?? 0;
  const text = streamedText();
  /** A text message was stored since the streamed text began: it holds that text, so a new watcher skips it. */
  let stale = false;
  let reloading = Promise.resolve();
  const broadcast = (update: TurnUpdate) => {
    for (const watcher of watchers) watcher.push(update);
  };
  /** Set once the follower has stopped: the final task, or null when the task could no longer be read. */
  let final: Task | null | undefined;
  const stop = (last: Task | null = null) => {
    final = last;
    clearInterval(poll);
    unsubscribe();
    followers.delete(followerKey(userId, first.id));
    for (const watcher of watchers) watcher.close();
  };
  const reload = () => {
    reloading = reloading.then(async () => {
      const read = await getTask(userId, first.id).catch(() => null);
      if (!read) return stop();
      task = read;
      for (const message of read.history?.slice(shown) ?? []) {
        if (message.parts.some((p) => p.kind === "text")) stale = true;
        broadcast({ kind: "message", message });
      }
      shown = read.history?.length ?? shown;
      if (isFinal(read)) {
        broadcast({ kind: "done", task: read });
        stop(read);
      }
    });
  };
  // The running instance publishes only once it has heard a hello (lib/agent/runtime.ts): until it
  // answers, every poll says hello again, so one lost notification cannot leave the follower on polls.
  let answered = false;
  const unsubscribe = bus.subscribe(first.id, (message) => {
    if (message.kind === "changed" || message.kind === "partial") answered = true;
    if (message.kind === "changed") reload();
    if (message.kind !== "partial") return;
    const epoch = text.epoch();
    const fresh = text.add(message);
    if (text.epoch() > epoch) stale = false;
    if (fresh) broadcast({ kind: "partial", message: partialMessage(first, fresh) });
  });
  const poll = setInterval(() => {
    reload();
    if (!answered) void bus.publish(first.id, { kind: "hello" }).catch(() => undefined);
  }, FOLLOW_POLL_MS);
  void bus.publish(first.id, { kind: "hello" }).catch(() => undefined);
  return {
    watch(watcher) {
      watcher.push({ kind: "task", task: final ?? task });
      if (final === undefined) {
        const partial = stale ? "" : text.value();
        if (partial) watcher.push({ kind: "partial", message: partialMessage(task, partial) });
        watchers.add(watcher);
        return;
      }
      if (final) watcher.push({ kind: "done", task: final });
      watcher.close();
    },
  };
}

/** This instance's follower of the user's task, started when the turn runs on another instance (null when it does not). */
function following(userId: string, taskId: string): Promise<RemoteFollower | null> {
  const key = followerKey(userId, taskId);
  let follower = followers.get(key);
  if (!follower) {
    follower = getTaskAndTurn(userId, taskId).then(({ task, running }) => (isFinal(task) || !running ? null : followRemote(userId, task)));
    followers.set(key, follower);
    const forget = () => followers.get(key) === follower && followers.delete(key);
    follower.then((started) => started ?? forget(), forget);
  }
  return follower;
}

/**
 * Follows a running turn from now on, on whichever instance runs it: the task as it is, the text
 * streamed so far, then every later update up to the final one. Null when it is not running.
 */
export async function watchTurn(userId: string, taskId: string): Promise<AsyncIterable<TurnUpdate> | null> {
  // A turn this instance runs, or follows for this user, is known to be the user's: another watcher joins
  // without reading the store, so hundreds of watchers of one turn cost what one does.
  const local = localTurns.get(taskId);
  if (local) {
    if (local.userId !== userId) await requireTask(userId, taskId);
    return watchLocal(local);
  }
  const follower = await following(userId, taskId);
  if (!follower) return null;
  const watcher = channel<TurnUpdate>();
  follower.watch(watcher);
  return watcher;
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
