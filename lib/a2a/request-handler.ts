import "server-only";
import type {
  AgentCard,
  CancelTaskRequest,
  Task as CoreTask,
  GetTaskRequest,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
} from "@a2a-js/sdk";
import { A2AError, PushNotificationNotSupportedError, TaskNotCancelableError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import type { A2ARequestHandler, ServerCallContext } from "@a2a-js/sdk/server";
import { cancelTurn, type TurnUpdate, watchTurn } from "@/lib/agent/runtime";
import type { Agent } from "@/lib/agent/types";
import { getTask } from "@/lib/db/queries";
import type { Task } from "@/lib/task/types";
import { malformed, taskError, toA2AError } from "./errors";
import type { TurnEvent } from "./frames";
import { pageTasks } from "./paging";
import { begin, streamTurn } from "./turns";
import { toCoreTask, toStreamResponse } from "./wire";

const MAX_PAGE_SIZE = 100;
const DEFAULT_PAGE_SIZE = 50;

/** The caller, as the route authenticated it (lib/a2a/jsonrpc.ts). */
function userOf(context: ServerCallContext): string {
  if (!context.user?.isAuthenticated) throw new A2AError("Not authenticated");
  return context.user.userName;
}

/** `historyLength` as A2A defines it: absent keeps all, 0 none, n the last n messages. */
function withHistoryLength(task: CoreTask, historyLength: number | undefined): CoreTask {
  if (historyLength === undefined) return task;
  if (!Number.isInteger(historyLength) || historyLength < 0) throw malformed("historyLength must be a non-negative integer");
  return { ...task, history: historyLength === 0 ? [] : task.history.slice(-historyLength) };
}

/**
 * The A2A methods of one agent over Retrace's store and runtime (docs/api.md, "A2A"), in the SDK's v1.0 terms;
 * the SDK's transports serve it as v1.0 and as v0.3 JSON-RPC. Not the SDK's DefaultRequestHandler: its
 * in-process event bus cannot follow or cancel a turn running on another instance, it refuses to
 * subscribe to a finished task, and it stores a failed task for input the spec wants refused unchanged.
 */
export class RetraceRequestHandler implements A2ARequestHandler {
  constructor(
    private readonly agent: Agent,
    private readonly card: AgentCard,
  ) {}

  async getAgentCard(): Promise<AgentCard> {
    return this.card;
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new UnsupportedOperationError("Agent does not support authenticated extended card.");
  }

  private async load(id: string, context: ServerCallContext): Promise<Task> {
    if (typeof id !== "string" || !id.trim()) throw malformed("A task id is required");
    try {
      return await getTask(userOf(context), id);
    } catch (error) {
      throw taskError(id, error);
    }
  }

  /** The origin the caller sees this app at: a file part's URL may name an upload there (lib/a2a/files.ts). */
  private get origin(): string {
    return new URL(this.card.supportedInterfaces[0]?.url ?? "http://localhost").origin;
  }

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<CoreTask> {
    const started = await begin(userOf(context), this.agent, params, this.origin);
    let task: Task;
    if ("task" in started) task = started.task;
    // A v0.3 request cannot say "wait" apart from "don't care" any more (the SDK maps both to
    // returnImmediately), so only v1.0 callers get the task before the turn ends.
    else if (params.configuration?.returnImmediately && context.requestedVersion !== "0.3") task = await firstTask(started.turn.updates);
    else task = await started.turn.done.catch((error) => Promise.reject(toA2AError(error)));
    return withHistoryLength(toCoreTask(task), params.configuration?.historyLength);
  }

  async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    for await (const event of this.sendMessageEvents(params, context)) yield toStreamResponse(event);
  }

  /** What `sendMessageStream` yields, in Retrace's v0.3 shapes: lib/a2a/jsonrpc.ts writes these in the caller's dialect. */
  async *sendMessageEvents(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<TurnEvent> {
    const started = await begin(userOf(context), this.agent, params, this.origin);
    if ("task" in started) yield started.task;
    else yield* streamTurn(started.turn.updates);
  }

  async getTask(params: GetTaskRequest, context: ServerCallContext): Promise<CoreTask> {
    return withHistoryLength(toCoreTask(await this.load(params.id, context)), params.historyLength);
  }

  /** A session's effective tasks, newest first, paged (`contextId` is required: tasks belong to a session). */
  async listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    if (!params.contextId) throw malformed("ListTasks needs the contextId of a session");
    const pageSize = params.pageSize ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) throw malformed(`pageSize must be 1 to ${MAX_PAGE_SIZE}`);
    const after = params.statusTimestampAfter ? Date.parse(params.statusTimestampAfter) : undefined;
    if (Number.isNaN(after)) throw malformed("statusTimestampAfter must be an ISO 8601 time");
    let page: Awaited<ReturnType<typeof pageTasks>>;
    try {
      page = await pageTasks(userOf(context), params.contextId, { limit: pageSize, before: params.pageToken || undefined });
    } catch (error) {
      throw toA2AError(error);
    }
    const tasks = page.items
      .map(toCoreTask)
      .reverse()
      .filter((t) => !params.status || t.status?.state === params.status)
      .filter((t) => after === undefined || Date.parse(t.status?.timestamp ?? "") >= after)
      .map((t) => withHistoryLength(params.includeArtifacts ? t : { ...t, artifacts: [] }, params.historyLength));
    return { tasks, nextPageToken: page.nextBefore ?? "", pageSize, totalSize: page.total };
  }

  /** Stops a running turn wherever it runs; what streamed is kept. Cancelling a canceled task answers it again. */
  async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<CoreTask> {
    const task = await this.load(params.id, context);
    const final = await cancelTurn(userOf(context), task.id);
    if (final) return toCoreTask(final);
    if (task.status.state === "canceled") return toCoreTask(task);
    throw new TaskNotCancelableError(`Task ${task.id} is not running (it is ${task.status.state})`);
  }

  /** The rest of a running task, wherever it runs; just the stored task when it has ended. */
  async *resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<StreamResponse> {
    for await (const event of this.resubscribeEvents(params, context)) yield toStreamResponse(event);
  }

  /** What `resubscribe` yields, in Retrace's v0.3 shapes (as `sendMessageEvents`). */
  async *resubscribeEvents(params: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<TurnEvent> {
    const id = params.id;
    if (typeof id !== "string" || !id.trim()) throw malformed("A task id is required");
    let updates: AsyncIterable<TurnUpdate> | null;
    try {
      updates = await watchTurn(userOf(context), id);
    } catch (error) {
      throw taskError(id, error);
    }
    if (updates) yield* streamTurn(updates);
    else yield await this.load(id, context);
  }

  async createTaskPushNotificationConfig(): Promise<never> {
    throw new PushNotificationNotSupportedError();
  }

  async getTaskPushNotificationConfig(): Promise<never> {
    throw new PushNotificationNotSupportedError();
  }

  async listTaskPushNotificationConfigs(): Promise<never> {
    throw new PushNotificationNotSupportedError();
  }

  async deleteTaskPushNotificationConfig(): Promise<never> {
    throw new PushNotificationNotSupportedError();
  }
}

async function firstTask(updates: AsyncIterable<{ kind: string; task?: Task }>): Promise<Task> {
  for await (const update of updates) if (update.task) return update.task;
  throw new A2AError("The turn ended before it started");
}
