import type { AgentCard, Message, MessageSendParams, Task, TaskIdParams, TaskQueryParams, TaskStatusUpdateEvent } from "@a2a-js/sdk";
import { A2AError, type A2ARequestHandler } from "@a2a-js/sdk/server";
import { z } from "zod";
import { cancelTurn, startTurn, type TurnUpdate, watchTurn } from "@/lib/agent/runtime";
import type { Agent } from "@/lib/agent/types";
import { createSession, getSession, getTask, rewindSession, saveTask } from "@/lib/db/queries";
import { AppError } from "@/lib/errors";
import { messageText } from "./convert";

type StreamResult = Task | TaskStatusUpdateEvent;

export function agentCard(agent: Agent, url: string): AgentCard {
  return {
    protocolVersion: "0.3.0",
    name: agent.name,
    description: agent.description,
    url,
    version: "1.0.0",
    preferredTransport: "JSONRPC",
    capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: [
      {
        id: "state",
        name: "Session state",
        description: "Set and read session state values.",
        tags: ["state"],
        examples: ["set color to red", "what is color?"],
      },
      {
        id: "files",
        name: "Files",
        description: "Save and load versioned text files.",
        tags: ["artifacts"],
        examples: ["save file notes.txt with content hello", "load file notes.txt"],
      },
      ...(agent.name === "demo"
        ? [
            {
              id: "recap",
              name: "Recap",
              description: "List what the user said in the effective history.",
              tags: ["history"],
              examples: ["recap"],
            },
          ]
        : []),
      {
        id: "rewind",
        name: "Rewind",
        description: "Send metadata.kagent_rewind_before_invocation_id to rewind the session first.",
        tags: ["rewind"],
      },
    ],
  };
}

/** Store errors become JSON-RPC errors with our machine code kept in `data`; anything else is logged, not leaked. */
function toA2AError(error: unknown): A2AError {
  if (error instanceof A2AError) return error;
  if (error instanceof AppError) return A2AError.invalidParams(error.message, { code: error.code });
  console.error(error);
  return A2AError.internalError("Internal error");
}

const messageParams = z.looseObject({
  message: z.looseObject({
    kind: z.literal("message").optional(),
    role: z.literal("user", "Only user messages can be sent"),
    parts: z.array(z.looseObject({ kind: z.string(), text: z.string().optional() })),
    contextId: z.string().min(1).optional(),
    metadata: z
      .looseObject({
        kagent_rewind_before_invocation_id: z.string().min(1).optional(),
        retrace_rewind_reason: z.enum(["rewind", "edit", "regenerate"]).optional(),
      })
      .nullish(),
  }),
});
const taskQuery = z.looseObject({ id: z.string().min(1), historyLength: z.int().nonnegative().optional() });

function parseParams<S extends z.ZodType>(schema: S, params: unknown): z.infer<S> {
  const result = schema.safeParse(params);
  if (!result.success) throw A2AError.invalidParams(z.prettifyError(result.error));
  return result.data;
}

function statusUpdate(task: Task, update: TurnUpdate): TaskStatusUpdateEvent {
  const final = update.kind === "done";
  const status = final
    ? update.task.status
    : { state: "working" as const, timestamp: new Date().toISOString(), message: update.kind === "task" ? undefined : update.message };
  return { kind: "status-update", taskId: task.id, contextId: task.contextId, status, final, metadata: task.metadata };
}

/** The A2A JSON-RPC methods for one agent and one authenticated user (SPEC §4.5). */
export class RetraceRequestHandler implements A2ARequestHandler {
  constructor(
    private readonly agent: Agent,
    private readonly userId: string,
    private readonly url: string,
  ) {}

  async getAgentCard() {
    return agentCard(this.agent, this.url);
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw A2AError.authenticatedExtendedCardNotConfigured();
  }

  /** Validates and applies everything that must happen before the stream starts. */
  private async begin(params: MessageSendParams) {
    const { message } = parseParams(messageParams, params);
    const text = messageText(message as Pick<Message, "parts">).trim();
    const rewindTo = message.metadata?.kagent_rewind_before_invocation_id;
    try {
      let sessionId = message.contextId;
      if (sessionId) {
        const session = await getSession(this.userId, sessionId);
        if (session.agent !== this.agent.name) throw A2AError.invalidParams(`Session ${sessionId} belongs to agent ${session.agent}`);
      } else {
        if (rewindTo) throw A2AError.invalidParams("A rewind needs the contextId of the session");
        if (!text) throw A2AError.invalidParams("The message has no text");
        sessionId = (await createSession(this.userId, { agent: this.agent.name })).id;
      }
      if (!text && !rewindTo) throw A2AError.invalidParams("The message has no text");
      if (rewindTo) {
        const { event: marker } = await rewindSession(this.userId, sessionId, rewindTo, message.metadata?.retrace_rewind_reason);
        if (!text) return { rewound: await this.effectiveTask(sessionId, marker.invocation_id, rewindTo) };
      }
      const messageId = typeof message.messageId === "string" ? message.messageId : undefined;
      return { turn: await startTurn({ userId: this.userId, sessionId, agent: this.agent, text, messageId }) };
    } catch (error) {
      throw toA2AError(error);
    }
  }

  /** The answer to a rewind control message: one final task holding the effective history, stored so tasks/get finds it. */
  private async effectiveTask(sessionId: string, markerInvocationId: string, rewindTo: string): Promise<Task> {
    await saveTask(this.userId, sessionId, {
      kind: "task",
      id: markerInvocationId,
      contextId: sessionId,
      status: { state: "completed", timestamp: new Date().toISOString() },
      metadata: { kagent_invocation_id: markerInvocationId, kagent_rewind_before_invocation_id: rewindTo },
    });
    return getTask(this.userId, markerInvocationId);
  }

  async *sendMessageStream(params: MessageSendParams): AsyncGenerator<StreamResult> {
    const started = await this.begin(params);
    if (started.rewound) {
      yield started.rewound;
      return;
    }
    let task: Task | undefined;
    for await (const update of started.turn.updates) {
      if (update.kind === "task") {
        task = update.task;
        yield task;
      } else if (task) {
        yield statusUpdate(task, update);
        if (update.kind === "done") return;
      }
    }
    throw A2AError.internalError("The turn stopped before it could be stored");
  }

  async sendMessage(params: MessageSendParams): Promise<Task> {
    const started = await this.begin(params);
    if (started.rewound) return started.rewound;
    return started.turn.done.catch((error) => {
      throw toA2AError(error);
    });
  }

  async getTask(params: TaskQueryParams): Promise<Task> {
    const { id, historyLength } = parseParams(taskQuery, params);
    let task: Task;
    try {
      task = await getTask(this.userId, id);
    } catch (error) {
      throw error instanceof AppError && error.status === 404 ? A2AError.taskNotFound(id) : toA2AError(error);
    }
    return historyLength === undefined ? task : { ...task, history: historyLength > 0 ? task.history?.slice(-historyLength) : [] };
  }

  async cancelTask(params: TaskIdParams): Promise<Task> {
    const task = await this.getTask({ id: params.id });
    const final = await cancelTurn(this.userId, task.id);
    if (!final) throw A2AError.taskNotCancelable(params.id);
    return final;
  }

  async setTaskPushNotificationConfig(): Promise<never> {
    throw A2AError.pushNotificationNotSupported();
  }

  async getTaskPushNotificationConfig(): Promise<never> {
    throw A2AError.pushNotificationNotSupported();
  }

  async listTaskPushNotificationConfigs(): Promise<never> {
    throw A2AError.pushNotificationNotSupported();
  }

  async deleteTaskPushNotificationConfig(): Promise<never> {
    throw A2AError.pushNotificationNotSupported();
  }

  /** The rest of a running task, on whichever instance runs it; just the task when it has ended. */
  async *resubscribe(params: TaskIdParams): AsyncGenerator<StreamResult> {
    const task = await this.getTask({ id: params.id });
    const updates = await watchTurn(this.userId, task.id);
    if (!updates) {
      yield task;
      return;
    }
    for await (const update of updates) {
      if (update.kind === "task") yield update.task;
      else {
        yield statusUpdate(task, update);
        if (update.kind === "done") return;
      }
    }
  }
}
