"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { cancelTask, isHistoryChanged, resubscribeTask, type SentFile, type StreamEvent, streamMessage } from "@/lib/a2a/client";
import { queryKeys } from "@/lib/query-keys";
import { messageText } from "@/lib/task/convert";
import type { Message, Task, TaskState, TaskStatusUpdateEvent } from "@/lib/task/types";
import { notifyError } from "../../ui/notify";
import { isConnectionLost, readableError } from "../../ui/readable-error";
import { backOnline } from "../../ui/use-online";
import { announce } from "../tab-sync";

/** The turn being streamed: the task once the server names it, and the text streamed since its last message. */
export interface LiveTurn {
  /** Changes with every send, so the list can follow each new turn. */
  key: number;
  task: Task | null;
  userText: string;
  /** The files the message attaches, shown until the server's task shows them. */
  userFiles: SentFile[];
  partial: string;
  /** Stop was pressed: the turn shows as stopped at once, while its cancel goes through. */
  stopped: boolean;
  /** The connection dropped while the turn ran: it stays as streamed so far until it is followed again. */
  reconnecting: boolean;
}

/** Edit & resend and Regenerate rewind before an invocation and send in one request (docs/semantics.md, "Edit & resend, Regenerate"). */
export interface RewindFirst {
  invocationId: string;
  reason: "edit" | "regenerate";
}

/** A message that never reached the agent, kept on screen with a Retry. */
export interface FailedSend {
  text: string;
  files: SentFile[];
  rewindFirst?: RewindFirst;
  model?: string;
  error: string;
}

/** States that end a turn's run: `input-required` waits for the user's decision, which runs it again. */
const ENDED = new Set<TaskState>(["completed", "canceled", "failed", "rejected", "input-required"]);

/** The update that ends a run: v1.0 frames (which the SDK translates) say so by their state alone. */
const isFinal = (event: TaskStatusUpdateEvent) => event.final || ENDED.has(event.status.state);

/** The live turn still runs: Stop applies (not once stopped, nor once its final frame came). */
export const isRunning = (live: LiveTurn | null) => live !== null && !live.stopped && !ENDED.has(live.task?.status.state ?? "working");

interface Running {
  controller: AbortController;
  taskId?: string;
  stopped: boolean;
  /** The session the turn runs in: a new chat's comes with the first frame. */
  sessionId: string | null;
  /** Its run ended waiting for the user's decision. */
  paused?: boolean;
}

function applyUpdate(turn: LiveTurn, event: TaskStatusUpdateEvent): LiveTurn {
  if (!turn.task) return turn;
  if (isFinal(event)) return { ...turn, task: { ...turn.task, status: event.status }, partial: "" };
  const update: Message | undefined = event.status.message;
  if (!update) return turn;
  if (update.metadata?.adk_partial) return { ...turn, partial: turn.partial + messageText(update) };
  const history = [...(turn.task.history ?? []), update];
  return { ...turn, task: { ...turn.task, history }, partial: update.parts.some((p) => p.kind === "text") ? "" : turn.partial };
}

/**
 * Sends a message over A2A and follows its turn; Stop cancels it. `onCreated` hears a new chat's id from the
 * first frame; `onEnd` runs when the turn is over (done, stopped or failed) with the session it ran in.
 */
export function useLiveTurn(opts: {
  agent: string;
  sessionId: string | null;
  onCreated: (id: string) => void;
  onEnd: (id: string | null) => Promise<void>;
  /** A send that failed before reaching the server gives its text (a stale view's send its files too) back to the composer. */
  restoreDraft: (text: string, files?: SentFile[]) => void;
  /** The chat's last turn as shown (null: none; undefined: not known), sent so a stale view is refused. */
  lastTurn: () => string | null | undefined;
}) {
  const queryClient = useQueryClient();
  const [live, setLive] = useState<LiveTurn | null>(null);
  const [failed, setFailed] = useState<FailedSend | null>(null);
  const running = useRef<Running | null>(null);
  /** Tasks this page has shown live: never followed again once they end. */
  const known = useRef(new Set<string>());

  async function cancel(taskId: string) {
    try {
      await cancelTask(opts.agent, taskId);
    } catch (error) {
      notifyError(error);
    }
  }

  function begin(userText: string, task: Task | null, userFiles: SentFile[] = []): Running {
    const turn: Running = { controller: new AbortController(), stopped: false, sessionId: opts.sessionId };
    running.current = turn;
    setFailed(null);
    setLive({ key: Date.now(), task, userText, userFiles, partial: "", stopped: false, reconnecting: false });
    return turn;
  }

  /** Shows a turn's frames as they come, to its final one; resolves with whether that came. */
  async function consume(turn: Running, frames: AsyncIterable<StreamEvent>): Promise<boolean> {
    let ended = false;
    for await (const event of frames) {
      if (event.kind === "task") {
        if (!turn.sessionId) {
          turn.sessionId = event.contextId;
          opts.onCreated(event.contextId);
        }
        const first = !turn.taskId;
        turn.taskId = event.id;
        known.current.add(event.id);
        // Other tabs of this chat follow the turn from its start.
        if (first) announce(event.contextId);
        // Stop came before the server named the task: cancel it now. Only CancelTask stops a turn, never hanging up.
        if (first && turn.stopped) {
          await cancel(event.id);
          turn.controller.abort();
          break;
        }
        setLive((s) => s && { ...s, task: event, partial: "" });
        // Following a turn that has ended answers just its task.
        ended = ENDED.has(event.status.state);
        turn.paused = event.status.state === "input-required";
        continue;
      }
      ended ||= isFinal(event);
      if (isFinal(event) && event.status.state === "input-required") turn.paused = true;
      setLive((s) => s && applyUpdate(s, event));
      if (event.final && event.status.state === "failed") {
        notifyError(event.status.message ? messageText(event.status.message) : "The agent failed");
      }
      if (!event.status.message?.metadata?.adk_partial && turn.sessionId) {
        void queryClient.invalidateQueries({ queryKey: queryKeys.session(turn.sessionId) });
        void queryClient.invalidateQueries({ queryKey: queryKeys.artifacts(turn.sessionId) });
      }
    }
    return ended;
  }

  /**
   * `consume`, to the turn's final frame: when the connection drops once the server has named the task, the
   * turn stays on screen as streamed so far and is followed again when the browser is back online
   * (SubscribeToTask answers what was missed, or just the final task if the turn ended meanwhile).
   */
  async function consumeToEnd(turn: Running, frames: AsyncIterable<StreamEvent>) {
    for (let attempt = 0; ; attempt++) {
      try {
        if ((await consume(turn, frames)) || turn.controller.signal.aborted || !turn.taskId) return;
      } catch (error) {
        if (turn.controller.signal.aborted || !turn.taskId || !isConnectionLost(error)) throw error;
      }
      // The stream broke off: an error, or an end without the final frame (a proxy or instance that hung up).
      setLive((s) => s && { ...s, reconnecting: true });
      await backOnline(attempt);
      frames = resubscribeTask(opts.agent, turn.taskId, turn.controller.signal);
      setLive((s) => s && { ...s, reconnecting: false });
    }
  }

  async function end(turn: Running) {
    running.current = null;
    // A turn that waits for a decision runs again once it is given (here, in another tab, from any client): followed again then.
    if (turn.taskId && turn.paused) known.current.delete(turn.taskId);
    // Offline, the chat cannot be read again, and its list would lack this turn: it stays shown as it is until then.
    for (let attempt = 0; ; attempt++) {
      if (navigator.onLine) {
        await opts.onEnd(turn.sessionId);
        if (navigator.onLine) break;
      }
      setLive((s) => s && { ...s, reconnecting: true });
      await backOnline(attempt);
    }
    if (turn.sessionId) announce(turn.sessionId);
    setLive(null);
  }

  async function send(text: string, rewindFirst?: RewindFirst, files: SentFile[] = [], model?: string) {
    const turn = begin(text, null, files);
    try {
      await consumeToEnd(
        turn,
        streamMessage({
          agent: opts.agent,
          text,
          contextId: turn.sessionId ?? undefined,
          rewindBeforeInvocationId: rewindFirst?.invocationId,
          rewindReason: rewindFirst?.reason,
          lastInvocationId: turn.sessionId ? opts.lastTurn() : undefined,
          files,
          model,
          signal: turn.controller.signal,
        }),
      );
    } catch (error) {
      if (!turn.controller.signal.aborted) {
        notifyError(error);
        if (isHistoryChanged(error)) {
          // Sent from a view the chat has left: nothing was written. The text and files go back to the composer
          // (an edit's too), and the chat is reloaded when the turn ends, so the user sees what changed first.
          opts.restoreDraft(text, files);
        } else {
          // Nothing reached the server: keep the message on screen with a Retry, and its text in the composer.
          if (!turn.taskId && !turn.stopped) setFailed({ text, files, rewindFirst, model, error: readableError(error) });
          if (!turn.taskId && !rewindFirst) opts.restoreDraft(text);
        }
      }
    } finally {
      await end(turn);
    }
  }

  /**
   * Follows a turn already running in this chat (started before a reload, in another tab or on another app
   * instance) to its end, with Stop working; each task is followed once. `task` is what the list has of it.
   */
  async function follow(taskId: string, task?: Task) {
    if (running.current || known.current.has(taskId)) return;
    known.current.add(taskId);
    const turn = begin(task?.history?.[0] ? messageText(task.history[0]) : "", task ?? null);
    turn.taskId = taskId;
    try {
      await consumeToEnd(turn, resubscribeTask(opts.agent, taskId, turn.controller.signal));
    } catch (error) {
      if (!turn.controller.signal.aborted) notifyError(error);
    } finally {
      await end(turn);
    }
  }

  /**
   * Sends the user's decision on the calls `task` waits for, and follows the turn it resumes (docs/api.md, "Tool
   * approval"). A decision another tab or client gave first changes nothing: the answer is the task as it is.
   */
  async function decide(task: Task, data: Record<string, unknown>) {
    if (running.current) return;
    known.current.add(task.id);
    const turn = begin(task.history?.[0] ? messageText(task.history[0]) : "", task);
    turn.taskId = task.id;
    try {
      const frames = streamMessage({
        agent: opts.agent,
        text: "",
        contextId: task.contextId,
        decision: { taskId: task.id, data },
        signal: turn.controller.signal,
      });
      await consumeToEnd(turn, frames);
    } catch (error) {
      if (!turn.controller.signal.aborted) notifyError(error);
    } finally {
      await end(turn);
    }
  }

  /** Ends the running turn: shown as stopped at once; cancelled now, or as soon as the server names its task. */
  function stop() {
    const turn = running.current;
    if (!turn || turn.stopped) return;
    turn.stopped = true;
    setLive((s) => s && { ...s, stopped: true });
    const { taskId } = turn;
    // Offline, the cancel waits to be back online.
    if (taskId) void (navigator.onLine ? cancel(taskId) : backOnline(0).then(() => cancel(taskId)));
  }

  return { live, failed, send, follow, decide, stop, dismissFailed: () => setFailed(null) };
}
