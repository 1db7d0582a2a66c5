import { randomUUID } from "node:crypto";
import { agentNote, eventToMessage } from "@/lib/a2a/convert";
import type { Message, Task, TaskState } from "@/lib/a2a/types";
import { appendEvents, getSession, saveTask } from "@/lib/db/queries";
import { newInvocationId } from "@/lib/session/rewind";
import type { AdkEvent, EventActions, Part } from "@/lib/session/types";
import { markBusy } from "./busy";
import { buildAgentContext } from "./context";
import type { Agent, AgentOutput } from "./types";

export type TurnUpdate =
  | { kind: "task"; task: Task }
  /** A streamed text chunk: shown live, never stored. */
  | { kind: "partial"; message: Message }
  /** A persisted event, exactly as it is in the task's history. */
  | { kind: "message"; message: Message }
  | { kind: "done"; task: Task };

type Channel<T> = ReturnType<typeof channel<T>>;

interface RunningTurn {
  controller: AbortController;
  done: Promise<Task>;
  /** The task as stored so far and the text streamed since its last stored message: what a late watcher starts from. */
  snapshot(): { task: Task; partial: string };
  watchers: Set<Channel<TurnUpdate>>;
}

// On globalThis so tasks/cancel reaches a turn started by another bundle.
const holder = globalThis as typeof globalThis & { __retraceTurns?: Map<string, RunningTurn> };
holder.__retraceTurns ??= new Map();
const running = holder.__retraceTurns;

/** Stops a running turn; resolves with its final task, or null when it is not running. */
export async function cancelTurn(taskId: string): Promise<Task | null> {
  const turn = running.get(taskId);
  if (!turn) return null;
  turn.controller.abort();
  return turn.done;
}

/**
 * Follows a running turn from now on (A2A resubscribe, a reloaded page): the task as it is, the
 * text streamed so far, then every later update up to the final one. Null when it is not running here.
 */
export function watchTurn(taskId: string): AsyncIterable<TurnUpdate> | null {
  const turn = running.get(taskId);
  if (!turn) return null;
  const watcher = channel<TurnUpdate>();
  const { task, partial } = turn.snapshot();
  watcher.push({ kind: "task", task: structuredClone(task) });
  if (partial) watcher.push({ kind: "partial", message: partialMessage(task, partial) });
  turn.watchers.add(watcher);
  return watcher;
}

function partialMessage(task: Task, text: string): Message {
  const invocationId = task.metadata?.kagent_invocation_id;
  const author = task.metadata?.kagent_agent;
  return agentNote(text, task.contextId, task.id, { kagent_invocation_id: invocationId, kagent_author: author, adk_partial: true });
}

/** A small unbounded queue: the turn runs on its own; readers may stop listening without stopping it. */
function channel<T>() {
  const items: T[] = [];
  let wake: (() => void) | null = null;
  let closed = false;
  return {
    push(item: T) {
      items.push(item);
      wake?.();
    },
    close() {
      closed = true;
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (items.length) yield items.shift()!;
        else if (closed) return;
        else await new Promise<void>((r) => (wake = r));
        wake = null;
      }
    },
  };
}

/**
 * Runs one invocation: stores the user event, runs the agent on the effective history, stores
 * each event it emits and the task, and streams updates. The session is busy until it ends.
 * Aborting `signal` (the client went away) stops the turn like tasks/cancel does.
 */
export function startTurn(opts: {
  userId: string;
  sessionId: string;
  agent: Agent;
  text: string;
  /** The A2A message id: a retried send with the same id will follow the turn it started (SPEC §7). */
  messageId?: string;
  signal?: AbortSignal;
}) {
  const release = markBusy(opts.sessionId);
  const { userId, sessionId, agent } = opts;
  const controller = new AbortController();
  const updates = channel<TurnUpdate>();
  const watchers = new Set([updates]);
  const publish = (update: TurnUpdate) => {
    for (const watcher of watchers) watcher.push(update);
  };
  let pending = "";
  const invocationId = newInvocationId();
  const taskId = randomUUID();
  const now = () => new Date().toISOString();

  const append = (author: string, parts: Part[], extra: Partial<AdkEvent> = {}, actions: EventActions = {}) => {
    const event: AdkEvent = {
      id: randomUUID(),
      invocation_id: invocationId,
      author,
      timestamp: Date.now() / 1000,
      content: { role: author === "user" ? "user" : "model", parts },
      actions: { state_delta: {}, artifact_delta: {}, ...actions },
      ...(author === "user" ? {} : { partial: false }),
      ...extra,
    };
    const [stored] = appendEvents(userId, sessionId, [event]);
    return eventToMessage(stored, sessionId, taskId);
  };

  let task: Task;
  try {
    const userMessage = append("user", [{ text: opts.text }]);
    task = {
      kind: "task",
      id: taskId,
      contextId: sessionId,
      status: { state: "submitted", timestamp: now() },
      history: [userMessage],
      metadata: { kagent_invocation_id: invocationId, kagent_agent: agent.name },
    };
    saveTask(userId, sessionId, task);
  } catch (error) {
    release();
    throw error;
  }
  publish({ kind: "task", task: structuredClone(task) });

  const finish = (state: TaskState, note?: string) => {
    task.status = {
      state,
      timestamp: now(),
      ...(note ? { message: agentNote(note, sessionId, taskId, { kagent_invocation_id: invocationId }) } : {}),
    };
    saveTask(userId, sessionId, task);
    return task;
  };

  const run = async (): Promise<Task> => {
    // A text event is usually the turn's last: it waits for the agent's next output so it can carry turn_complete.
    let held: Extract<AgentOutput, { type: "event" }> | null = null;
    const record = (message: Message) => {
      task.history!.push(message);
      saveTask(userId, sessionId, task);
      publish({ kind: "message", message });
    };
    const flush = (extra: Partial<AdkEvent> = {}) => {
      if (held) record(append(agent.name, held.parts, extra, held.actions));
      held = null;
    };
    const stop = () => {
      if (pending) {
        flush();
        record(append(agent.name, [{ text: pending }], { interrupted: true, turn_complete: true }));
      } else flush({ turn_complete: true });
      return finish("canceled");
    };
    try {
      task.status = { state: "working", timestamp: now() };
      const ctx = {
        userId,
        sessionId,
        agentName: agent.name,
        invocationId,
        history: buildAgentContext(userId, sessionId),
        state: () => getSession(userId, sessionId).state,
        signal: controller.signal,
      };
      for await (const output of agent.run(ctx)) {
        if (controller.signal.aborted) break;
        flush();
        if (output.type === "text-delta") {
          pending += output.text;
          publish({ kind: "partial", message: partialMessage(task, output.text) });
        } else if (output.parts.some((p) => p.text !== undefined)) {
          pending = "";
          held = output;
        } else {
          record(append(agent.name, output.parts, {}, output.actions));
        }
      }
      if (controller.signal.aborted) return stop();
      flush({ turn_complete: true });
      return finish("completed");
    } catch (error) {
      if (controller.signal.aborted) return stop();
      const message = error instanceof Error ? error.message : String(error);
      console.error(`turn ${invocationId} failed:`, error);
      try {
        flush();
        record(append(agent.name, [], { error_code: "AGENT_ERROR", error_message: message, turn_complete: true }));
      } catch (storeError) {
        console.error(`turn ${invocationId}: could not store the failure:`, storeError);
      }
      return finish("failed", message);
    }
  };

  const onClientGone = () => controller.abort();
  opts.signal?.addEventListener("abort", onClientGone, { once: true });
  const done = run().finally(() => {
    opts.signal?.removeEventListener("abort", onClientGone);
    running.delete(taskId);
    release();
  });
  running.set(taskId, { controller, done, watchers, snapshot: () => ({ task, partial: pending }) });
  if (opts.signal?.aborted) controller.abort();
  done
    .then(
      (final) => publish({ kind: "done", task: structuredClone(final) }),
      (error) => console.error(`turn ${invocationId} could not finish:`, error),
    )
    .finally(() => {
      for (const watcher of watchers) watcher.close();
    });
  return { taskId, invocationId, updates, done };
}
