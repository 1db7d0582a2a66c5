import { randomUUID } from "node:crypto";
import type { Message, Task, TaskState } from "@a2a-js/sdk";
import { agentNote, eventToMessage } from "@/lib/a2a/convert";
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

interface RunningTurn {
  controller: AbortController;
  done: Promise<Task>;
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

/** Resolves with a running turn's final task, or null when it is not running in this process. */
export async function runningTurn(taskId: string): Promise<Task | null> {
  return running.get(taskId)?.done ?? null;
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
export function startTurn(opts: { userId: string; sessionId: string; agent: Agent; text: string; signal?: AbortSignal }) {
  const release = markBusy(opts.sessionId);
  const { userId, sessionId, agent } = opts;
  const controller = new AbortController();
  const updates = channel<TurnUpdate>();
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
  updates.push({ kind: "task", task: structuredClone(task) });

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
    let pending = "";
    // A text event is usually the turn's last: it waits for the agent's next output so it can carry turn_complete.
    let held: Extract<AgentOutput, { type: "event" }> | null = null;
    const record = (message: Message) => {
      task.history!.push(message);
      saveTask(userId, sessionId, task);
      updates.push({ kind: "message", message });
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
          updates.push({
            kind: "partial",
            message: agentNote(output.text, sessionId, taskId, {
              kagent_invocation_id: invocationId,
              kagent_author: agent.name,
              adk_partial: true,
            }),
          });
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
  running.set(taskId, { controller, done });
  if (opts.signal?.aborted) controller.abort();
  done
    .then(
      (final) => updates.push({ kind: "done", task: structuredClone(final) }),
      (error) => console.error(`turn ${invocationId} could not finish:`, error),
    )
    .finally(() => updates.close());
  return { taskId, invocationId, updates, done };
}
