import type { AgentCard, Message, MessageSendParams, Task, TaskIdParams, TaskQueryParams, TaskStatusUpdateEvent } from "@a2a-js/sdk";
import { A2AError, type A2ARequestHandler } from "@a2a-js/sdk/server";
import { z } from "zod";
import { cancelTurn, runningTurn, startTurn, type TurnUpdate } from "@/lib/agent/runtime";
import type { Agent } from "@/lib/agent/types";
import { createSession, getSession, getTask, listTasks, rewindSession } from "@/lib/db/queries";
import { AppError } from "@/lib/errors";
import { joinHistories, messageText } from "./convert";

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
    /** The HTTP request's signal: a client that goes away stops its turn. */
    private readonly signal?: AbortSignal,
  ) {}

  async getAgentCard() {
    return agentCard(this.agent, this.url);
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw A2AError.authenticatedExtendedCardNotConfigured();
  }

  /** Validates and applies everything that must happen before the stream starts. */
  private begin(params: MessageSendParams) {
    const { message } = parseParams(messageParams, params);
    const text = messageText(message as Pick<Message, "parts">).trim();
    const rewindTo = message.metadata?.kagent_rewind_before_invocation_id;
    try {
      let sessionId = message.contextId;
      if (sessionId) {
        const session = getSession(this.userId, sessionId);
        if (session.agent !== this.agent.name) throw A2AError.invalidParams(`Session ${sessionId} belongs to agent ${session.agent}`);
      } else {
        if (rewindTo) throw A2AError.invalidParams("A rewind needs the contextId of the session");
        if (!text) throw A2AError.invalidParams("The message has no text");
        sessionId = createSession(this.userId, { agent: this.agent.name }).id;
      }
      if (!text && !rewindTo) throw A2AError.invalidParams("The message has no text");
      const marker = rewindTo ? rewindSession(this.userId, sessionId, rewindTo, message.metadata?.retrace_rewind_reason).event : null;
      if (marker && !text) return { rewound: this.effectiveTask(sessionId, marker.invocation_id, rewindTo!) };
      return { turn: startTurn({ userId: this.userId, sessionId, agent: this.agent, text, signal: this.signal }) };
    } catch (error) {
      throw toA2AError(error);
    }
  }

  /** The answer to a rewind control message: one final task holding the effective history. */
  private effectiveTask(sessionId: string, markerInvocationId: string, rewindTo: string): Task {
    return {
      kind: "task",
      id: markerInvocationId,
      contextId: sessionId,
      status: { state: "completed", timestamp: new Date().toISOString() },
      history: joinHistories(listTasks(this.userId, sessionId)),
      metadata: { kagent_invocation_id: markerInvocationId, kagent_rewind_before_invocation_id: rewindTo },
    };
  }

  async *sendMessageStream(params: MessageSendParams): AsyncGenerator<StreamResult> {
    const started = this.begin(params);
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
    const started = this.begin(params);
    if (started.rewound) return started.rewound;
    return started.turn.done.catch((error) => {
      throw toA2AError(error);
    });
  }

  async getTask(params: TaskQueryParams): Promise<Task> {
    const { id, historyLength } = parseParams(taskQuery, params);
    let task: Task;
    try {
      task = getTask(this.userId, id);
    } catch (error) {
      throw error instanceof AppError && error.status === 404 ? A2AError.taskNotFound(id) : toA2AError(error);
    }
    return historyLength === undefined ? task : { ...task, history: historyLength > 0 ? task.history?.slice(-historyLength) : [] };
  }

  async cancelTask(params: TaskIdParams): Promise<Task> {
    const task = await this.getTask({ id: params.id });
    const final = await cancelTurn(task.id);
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

  /** The task as it is now, then (while it runs here) its final state. */
  async *resubscribe(params: TaskIdParams): AsyncGenerator<StreamResult> {
    const task = await this.getTask({ id: params.id });
    yield task;
    const final = await runningTurn(task.id);
    if (final) yield final;
  }
}
