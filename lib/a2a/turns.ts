import "server-only";
import type { SendMessageRequest } from "@a2a-js/sdk";
import { Role } from "@a2a-js/sdk";
import { A2AError } from "@a2a-js/sdk/errors";
import { z } from "zod";
import { decideTurn } from "@/lib/agent/decisions";
import { pickModel } from "@/lib/agent/models";
import { startTurn, type TurnUpdate } from "@/lib/agent/runtime";
import type { Agent } from "@/lib/agent/types";
import { getTask, rewindForMessage, sessionAgent } from "@/lib/db/queries";
import { issuesText, WrongAgentError } from "@/lib/errors";
import type { Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from "@/lib/task/types";
import { decisionOf } from "./decision";
import { malformed, taskError, toA2AError } from "./errors";
import { type SentFiles, sentFiles } from "./files";
import type { TurnEvent } from "./frames";
import { coreMessageText } from "./wire";

const controlMetadata = z.looseObject({
  kagent_rewind_before_invocation_id: z.string().min(1).optional(),
  retrace_rewind_reason: z.enum(["rewind", "edit", "regenerate"]).optional(),
  retrace_last_invocation_id: z.string().min(1).nullable().optional(),
  retrace_model: z.string("metadata.retrace_model must be a model's name").optional(),
});

/** What a turn reads of a sent message, checked: the SDK passes fields of any JSON type on. */
const sentMessage = z.looseObject({
  // It becomes the stored message's (its event's) id, whose length events limit.
  messageId: z
    .string("message.messageId is required")
    .min(1, "message.messageId is required")
    .max(200, "message.messageId is at most 200 characters"),
  contextId: z.string("message.contextId must be a string").optional(),
  parts: z.array(z.looseObject({}), "message.parts must be a list of parts"),
});

type Started = { task: Task } | { turn: Awaited<ReturnType<typeof startTurn>> };

/**
 * Validates a sent message and applies everything that must happen before a stream starts: the session
 * (`contextId`, a new one when absent), the rewind a control message asks for, then the turn. A rewind
 * without text answers one final task holding the effective history, stored so GetTask finds it.
 */
export async function begin(userId: string, agent: Agent, params: SendMessageRequest, origin: string): Promise<Started> {
  const message = params.message;
  const checked = sentMessage.safeParse(message);
  if (!message || !checked.success) throw malformed(checked.error ? issuesText(checked.error) : "A message is required");
  if (message.role !== Role.ROLE_USER) throw malformed("Only user messages can be sent");
  const parsed = controlMetadata.safeParse(message.metadata ?? {});
  if (!parsed.success) throw malformed(issuesText(parsed.error));
  const {
    kagent_rewind_before_invocation_id: rewindTo,
    retrace_rewind_reason: reason,
    retrace_last_invocation_id: lastInvocationId,
    retrace_model: model,
  } = parsed.data;
  // The user's decision on a task waiting for one (kagent's decision data part): it resumes that task.
  const decision = decisionOf(message);
  if (decision) {
    if (!message.taskId) throw malformed("A decision needs the taskId of the task that waits for it");
    try {
      const decided = await decideTurn({ userId, agent, taskId: message.taskId, decision });
      return "task" in decided ? decided : { turn: decided };
    } catch (error) {
      throw error instanceof WrongAgentError ? malformed(error.message) : taskError(message.taskId, error);
    }
  }
  const text = coreMessageText(message).trim();
  const files = message.parts.some((p) => p.content?.$case === "raw" || p.content?.$case === "url");
  if (!text && !rewindTo && !files) throw malformed("The message has no text and no file");
  // Proto-JSON sends an absent contextId as "".
  const sessionId = message.contextId || undefined;
  let sent: SentFiles | undefined;
  try {
    if (!sessionId && rewindTo) throw malformed("A rewind needs the contextId of the session");
    // A retried message (same messageId) finds what the first one did: no second rewind, no second turn.
    if (sessionId && rewindTo && !text && !files) {
      const owner = await sessionAgent(userId, sessionId);
      if (owner !== agent.name) throw new WrongAgentError(sessionId, owner);
      return { task: await getTask(userId, await rewindForMessage(userId, sessionId, rewindTo, reason ?? "rewind", message.messageId)) };
    }
    const rewindBefore = rewindTo ? { invocationId: rewindTo, reason: reason ?? "rewind" } : undefined;
    // An unknown model is refused before the message's files are stored: a refused send writes nothing.
    pickModel(agent, model);
    sent = await sentFiles(userId, message, origin);
    const attachments = sent.attachments;
    // Without a contextId the turn starts a new chat, in the same transaction.
    return {
      turn: await startTurn({
        userId,
        sessionId,
        agent,
        text,
        messageId: message.messageId,
        rewindBefore,
        lastInvocationId,
        model,
        attachments,
      }),
    };
  } catch (error) {
    throw error instanceof WrongAgentError ? malformed(error.message) : toA2AError(error);
  } finally {
    await sent?.release();
  }
}

function statusUpdate(task: Task, update: Exclude<TurnUpdate, { kind: "task" }>): TaskStatusUpdateEvent {
  const final = update.kind === "done";
  const status = final ? update.task.status : { state: "working" as const, timestamp: new Date().toISOString(), message: update.message };
  // The final update carries the final task's metadata: its usage (`kagent_usage_metadata`) is known only then.
  return {
    kind: "status-update",
    taskId: task.id,
    contextId: task.contextId,
    status,
    final,
    metadata: final ? update.task.metadata : task.metadata,
  };
}

/**
 * What kagent's agent runtime sends before a turn's final status update: an artifact holding the text of the
 * turn's last message, the agent's reply (`lastChunk`). kagent's UI keeps a streamed reply only from it, or
 * from the final status update's text, which a failure has instead (its note). None when the turn did not
 * end on a reply of the agent's.
 */
function closingArtifact(task: Task): TaskArtifactUpdateEvent | null {
  const last = task.history?.at(-1);
  const parts = last?.role === "agent" && !task.status.message ? last.parts.filter((p) => p.kind === "text") : [];
  if (!last || parts.length === 0) return null;
  const artifact = { artifactId: last.messageId, parts };
  return {
    kind: "artifact-update",
    taskId: task.id,
    contextId: task.contextId,
    artifact,
    append: false,
    lastChunk: true,
    metadata: task.metadata,
  };
}

/**
 * A turn's updates as A2A stream events, in Retrace's v0.3 shapes (lib/a2a/frames.ts writes them in the reader's
 * dialect): the task, then a working status update per streamed chunk (`metadata.adk_partial`) and per stored
 * message, the closing artifact, then the final status update.
 */
export async function* streamTurn(updates: AsyncIterable<TurnUpdate>): AsyncGenerator<TurnEvent> {
  let task: Task | undefined;
  for await (const update of updates) {
    if (update.kind === "task") {
      task = update.task;
      yield task;
    } else if (task) {
      const closing = update.kind === "done" && closingArtifact(update.task);
      if (closing) yield closing;
      yield statusUpdate(task, update);
      if (update.kind === "done") return;
    }
  }
  throw new A2AError("The turn stopped before it reached a final state");
}
