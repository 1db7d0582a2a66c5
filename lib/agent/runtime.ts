import "server-only";
import { randomUUID } from "node:crypto";
import { type BusMessage, getDb } from "@/lib/db/connection";
import { beginTurn, currentState, type TurnWriter } from "@/lib/db/queries";
import { StaleTurnError } from "@/lib/errors";
import type { AttachmentSource } from "@/lib/session/attachments";
import { newInvocationId, type RewindReason } from "@/lib/session/rewind";
import type { PendingCall, ToolConfirmation } from "@/lib/session/tools";
import type { AdkEvent } from "@/lib/session/types";
import { agentNote, eventToMessage, messageText } from "@/lib/task/convert";
import type { Message, Task, TaskState } from "@/lib/task/types";
import { type TurnTrace, traceTurn } from "@/lib/telemetry/trace";
import { callRunner } from "./calls";
import { channel } from "./channel";
import { CONTEXT_EVENTS, once } from "./context";
import { followTurn, INSTANCE, type LocalTurn, localTurns, partialMessage, type TurnUpdate } from "./live";
import { type EventOf, eventsOf, pickModel, usageMeter } from "./models";
import { toolbox } from "./toolbox";
import type { Agent, CallResponses, InvocationContext, ModelInfo } from "./types";

export { cancelTurn, type TurnUpdate, watchTurn } from "./live";

export interface Turn {
  taskId: string;
  invocationId: string;
  updates: AsyncIterable<TurnUpdate>;
  done: Promise<Task>;
}

const now = () => new Date().toISOString();

/**
 * Runs one invocation: stores the user event, the task and the session's lease together, runs the
 * agent on the effective history, stores each event it emits, and streams updates to every watcher
 * (on this instance directly, on others through the bus). A send that repeats an A2A `messageId`
 * follows the turn it already started instead of starting a second one. Only `cancelTurn` (or losing
 * the lease) stops a turn — never a client that goes away.
 */
export async function startTurn(opts: {
  userId: string;
  /** The chat to run in; a new chat of `agent` when absent. */
  sessionId?: string;
  agent: Agent;
  text: string;
  messageId?: string;
  /** Rewind before this invocation first, in the same transaction (Edit & resend, Regenerate). */
  rewindBefore?: { invocationId: string; reason: RewindReason };
  /** The turn the sender shows last, checked before anything is written (lib/db/tx/last-turn.ts). */
  lastInvocationId?: string | null;
  /** The agent's model to run on, by name (its first when absent). */
  model?: string;
  /** What the message attaches (docs/semantics.md, "Attachments"): the task's message is the stored one, with them. */
  attachments?: AttachmentSource[];
}): Promise<Turn> {
  const { userId, agent } = opts;
  const model = pickModel(agent, opts.model);
  const sessionId = opts.sessionId ?? randomUUID();
  const invocationId = newInvocationId();
  const taskId = randomUUID();
  const event = eventsOf(invocationId, model.name);
  // The sender's A2A messageId is the id of the message it sent, as stored: a client finds what it sent.
  const userEvent = event("user", opts.text ? [{ text: opts.text }] : [], opts.messageId ? { id: opts.messageId } : {});
  const task: Task = {
    kind: "task",
    id: taskId,
    contextId: sessionId,
    status: { state: "submitted", timestamp: now() },
    history: [eventToMessage(userEvent, sessionId, taskId)],
    metadata: { kagent_invocation_id: invocationId, kagent_agent: agent.name, retrace_model: model.name },
  };
  const traced = traceTurn({ agent: agent.name, sessionId, invocationId });
  // Stored as working: the turn runs from the moment it commits. Streams still open on "submitted".
  const begun = await traced.begin("retrace.begin", () =>
    beginTurn(userId, sessionId, {
      agent: agent.name,
      create: opts.sessionId === undefined,
      task: { ...task, status: { state: "working", timestamp: task.status.timestamp } },
      userEvent,
      owner: INSTANCE,
      messageId: opts.messageId,
      rewindBefore: opts.rewindBefore,
      lastInvocationId: opts.lastInvocationId,
      attachments: opts.attachments,
    }),
  );
  if ("existing" in begun) traced.ended("followed");
  if ("existing" in begun) return followTurn(userId, begun.existing);
  task.history = [eventToMessage(begun.event, sessionId, taskId)];
  return runLocal({ userId, sessionId, agent, model, task, invocationId, event, writer: begun, traced });
}

export function runLocal(turn: {
  userId: string;
  sessionId: string;
  agent: Agent;
  model: ModelInfo;
  task: Task;
  invocationId: string;
  event: EventOf;
  writer: TurnWriter;
  /** A turn resumed by the user's decision on the calls it waited for (lib/agent/decisions.ts). */
  resume?: { pending: PendingCall[]; answers: ToolConfirmation[] };
  /** The turn's trace (lib/telemetry/trace.ts), begun with its first transaction. */
  traced: TurnTrace;
}): Turn {
  const { userId, sessionId, agent, task, invocationId, writer, traced } = turn;
  const taskId = task.id;
  const controller = new AbortController();
  const updates = channel<TurnUpdate>();
  const watchers = new Set([updates]);
  let pending = "";
  /** Counts stored text messages, so watchers elsewhere know when streamed text starts over. */
  let epoch = 0;
  let lost = false;
  const usage = usageMeter(task, turn.model);
  const bus = getDb().then((db) => db.bus);
  const toBus = (update: TurnUpdate): BusMessage => {
    if (update.kind !== "partial") return { kind: "changed" };
    const text = messageText(update.message);
    return { kind: "partial", epoch, offset: pending.length - text.length, text };
  };
  // Updates go on the bus only once another instance showed interest (a watcher's hello, a cancel): unread, they were five NOTIFYs
  // a turn and one per streamed word. The reply to a hello catches the watcher up with the stored task and the text streamed so far.
  let watchedElsewhere = false;
  const publish = (update: TurnUpdate) => {
    for (const watcher of watchers) watcher.push(update);
    if (watchedElsewhere) void bus.then((b) => b.publish(taskId, toBus(update))).catch(() => undefined);
  };

  const record = (message: Message) => {
    task.history?.push(message);
    if (message.parts.some((p) => p.kind === "text")) epoch += 1;
    publish({ kind: "message", message });
  };
  /**
   * Events the agent emitted that are not stored yet: a function call waits for its response and a text
   * for what follows it (it may be the turn's last, which carries turn_complete), so that they are stored
   * together: one write instead of two.
   */
  let waiting: AdkEvent[] = [];
  const takeWaiting = (): AdkEvent[] => {
    const events = waiting;
    waiting = [];
    return events;
  };
  const store = async () => {
    const events = takeWaiting();
    if (events.length === 0) return;
    for (const stored of await writer.append(events)) record(eventToMessage(stored, sessionId, taskId));
  };
  /** The turn ends with a text the agent emitted last: that event carries turn_complete. */
  const completeWaiting = () => {
    const last = waiting.at(-1);
    if (last?.content?.parts?.some((p) => p.text !== undefined)) last.turn_complete = true;
    return takeWaiting();
  };
  /** Ends the turn (or pauses it, `input-required`); its last events are stored in the same transaction (one write fewer per turn). */
  const finish = async (state: TaskState, message?: Message, last: AdkEvent[] = []) => {
    task.status = { state, timestamp: now(), ...(message ? { message } : {}) };
    const tokens = usage.settle();
    if (lost) return task;
    for (const stored of await traced.phase("retrace.end", () => writer.end(task, last, tokens)))
      record(eventToMessage(stored, sessionId, taskId));
    return task;
  };

  const run = async (): Promise<Task> => {
    const stop = async () => {
      if (lost) return finish("canceled");
      if (!pending) return finish("canceled", undefined, completeWaiting());
      const interrupted = turn.event(agent.name, [{ text: pending }], { interrupted: true, turn_complete: true });
      return finish("canceled", undefined, [...takeWaiting(), interrupted]);
    };
    try {
      task.status = { state: "working", timestamp: now() };
      const tools = toolbox(agent.mcp);
      const ctx: InvocationContext = {
        userId,
        sessionId,
        taskId,
        agentName: agent.name,
        model: turn.model.name,
        invocationId,
        userEvent: writer.event,
        history: once(() => traced.phase("retrace.history", () => writer.history(CONTEXT_EVENTS))),
        state: () => currentState(userId, sessionId),
        tools: () => tools.specs(),
        signal: controller.signal,
      };
      const calls = callRunner({
        ctx,
        toolbox: tools,
        state: writer.state,
        event: (parts, extra, actions) => turn.event(agent.name, parts, extra, actions),
        emit: (e) => waiting.push(e),
        store,
      });
      if (turn.resume) {
        const { pending: waited, answers } = turn.resume;
        ctx.resumed = { calls: waited.map((p) => p.call), responses: await calls.decided(waited, answers) };
      }
      traced.modelStarts();
      const steps = agent.run(ctx);
      let answer: CallResponses | undefined;
      for (;;) {
        const next = await steps.next(answer);
        answer = undefined;
        if (next.done || controller.signal.aborted) break;
        const output = next.value;
        if (output.type === "text-delta") {
          traced.token();
          await store();
          pending += output.text;
          publish({ kind: "partial", message: partialMessage(task, output.text) });
        } else if (output.type === "calls") {
          pending = "";
          const ran = await calls.run(output.calls, usage.count(output.usage));
          if ("responses" in ran) answer = ran.responses;
          else {
            // The turn waits for the user's decision: stored, its session released, nothing kept in memory.
            await steps.return();
            const confirmation = calls.pause(ran.paused);
            return await finish("input-required", eventToMessage(confirmation, sessionId, taskId), [...takeWaiting(), confirmation]);
          }
        } else {
          // A text waits for what follows it (the end carries turn_complete), a call for its response; anything else is stored now.
          const text = output.parts.some((p) => p.text !== undefined);
          if (text) pending = "";
          waiting.push(turn.event(agent.name, output.parts, usage.count(output.usage), output.actions));
          if (!text && !output.parts.some((p) => p.function_call)) await store();
        }
      }
      if (controller.signal.aborted) return await stop();
      return await finish("completed", undefined, completeWaiting());
    } catch (error) {
      if (error instanceof StaleTurnError) lost = true;
      if (controller.signal.aborted || lost) return stop();
      const message = error instanceof Error ? error.message : String(error);
      console.error(`turn ${invocationId} failed:`, error);
      const failure = turn.event(agent.name, [], { error_code: "AGENT_ERROR", error_message: message, turn_complete: true });
      // What the agent emitted last may be what could not be stored: then the failure is stored without it.
      for (const last of [[...takeWaiting(), failure], [failure]]) {
        try {
          return await finish("failed", agentNote(message, sessionId, taskId, { kagent_invocation_id: invocationId }), last);
        } catch (storeError) {
          console.error(`turn ${invocationId}: could not store the failure:`, storeError);
        }
      }
      return finish("failed", agentNote(message, sessionId, taskId, { kagent_invocation_id: invocationId }));
    }
  };

  // The lease: renewed while the turn runs; a cancel flag set by another instance stops the turn, and
  // a lost lease (another instance took over after this one stalled) stops it without another write.
  const renew = setInterval(() => {
    writer.renew().then(
      ({ held, cancel }) => {
        if (!held) lost = true;
        if (!held || cancel) controller.abort();
      },
      (error) => console.error(`turn ${invocationId}: could not renew its lease:`, error),
    );
  }, writer.renewEvery);
  const unsubscribe = bus.then((b) =>
    b.subscribe(taskId, (message) => {
      if (message.kind === "cancel" || message.kind === "hello") watchedElsewhere = true;
      if (message.kind === "cancel") controller.abort();
      if (message.kind !== "hello") return;
      void b.publish(taskId, { kind: "changed" }).catch(() => undefined);
      if (pending) void b.publish(taskId, { kind: "partial", epoch, offset: 0, text: pending }).catch(() => undefined);
    }),
  );
  const local: LocalTurn = { userId, controller, done: Promise.resolve(task), watchers, snapshot: () => ({ task, partial: pending }) };
  localTurns.set(taskId, local);
  publish({ kind: "task", task: structuredClone(task) });
  local.done = run()
    .catch(async (error) => {
      console.error(`turn ${invocationId} could not finish:`, error);
      return task;
    })
    .finally(() => {
      clearInterval(renew);
      void unsubscribe.then((stopListening) => stopListening());
      localTurns.delete(taskId);
    });
  void local.done.then((final) => {
    traced.ended(final.status.state);
    publish({ kind: "done", task: structuredClone(final) });
    for (const watcher of watchers) watcher.close();
  });
  return { taskId, invocationId, updates, done: local.done };
}
