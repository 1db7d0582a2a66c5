/**
 * kagent's web UI at v0.10.0-rc3 (commit 7c52fffe, the last to speak REST and A2A v0.3) as Retrace meets it,
 * built from nothing of kagent's: the requests its Next.js server makes to `BACKEND_INTERNAL_URL` with the
 * headers it forwards, and what its chat shows of a streamed turn and of a reload. From its source:
 * - ui/src/app/actions/utils.ts (`fetchApi`), sessions.ts, sessionShares.ts: paths, bodies, and the
 *   `{data, message, error}` it reads (an error's `error`, else its `message`, is what its toasts show);
 * - ui/src/lib/auth.ts: it forwards `Authorization` and the headers `KAGENT_ADDITIONAL_FORWARDED_HEADERS` names;
 * - ui/src/app/a2a/[namespace]/[agentName]/route.ts, ui/src/lib/a2aClient.ts, ui/src/components/chat/ChatInterface.tsx:
 *   `message/stream` to `{backend}/a2a/{namespace}/{agent}/`, the message it builds, `result` of each `data:` line;
 * - ui/src/lib/messageHandlers.ts: which stream events leave a message on screen, and what a reload shows.
 */

type Json = Record<string, unknown>;
type Part = { kind: string; text?: string; data?: Json; metadata?: Json };
type A2AMessage = { kind: "message"; messageId: string; role: string; parts: Part[]; contextId?: string; metadata?: Json };
export type StreamEvent = Json & { kind: string };
export interface Task {
  id: string;
  contextId: string;
  status: { state: string };
  history: A2AMessage[];
  metadata: Json;
}
/** What a server action answers the page: kagent's `BaseResponse`. */
export interface Answer<T> {
  status: number;
  data?: T;
  message?: string;
  error?: string;
}
/** A message as the chat shows it: the user's or the agent's text, or a tool call's or result's card. */
export type Shown = { kind: "user" | "text" | "tool-call" | "tool-result"; text: string };

/** `adk_<key>`, else `kagent_<key>`, as kagent's UI reads metadata. */
const meta = (metadata: Json | undefined, key: string) => metadata?.[`adk_${key}`] ?? metadata?.[`kagent_${key}`];

/** A data part as a tool card; a HITL stub (a pending or confirmation response) shows none. */
function toolCard(part: Part): Shown | null {
  const type = meta(part.metadata, "type");
  const name = String(part.data?.name);
  if (type === "function_call") return { kind: "tool-call", text: name };
  const status = (part.data?.response as Json | undefined)?.status;
  if (type === "function_response" && status !== "pending" && status !== "confirmation_requested")
    return { kind: "tool-result", text: name };
  return null;
}

const textOf = (parts: Part[]) =>
  parts
    .filter((p) => p.kind === "text")
    .map((p) => p.text ?? "")
    .join("");

/**
 * What kagent's chat shows once a stream has been read (messageHandlers.ts): a working status update's text
 * only streams (it is replaced when the turn ends); a final status update's text, an `artifact-update` with
 * `lastChunk` (or stamped non-partial) and an agent message are kept; the final status update clears what streamed.
 */
export function shownAfterStream(events: StreamEvent[]): { kept: Shown[]; streaming: string } {
  const kept: Shown[] = [];
  let streaming = "";
  for (const event of events) {
    if (event.kind === "status-update") {
      const status = event.status as { message?: A2AMessage };
      const message = status.message;
      if (message && message.role !== "user") {
        for (const part of message.parts) {
          if (part.kind === "text") {
            if (event.final) kept.push({ kind: "text", text: part.text ?? "" });
            else streaming += part.text ?? "";
          }
          const card = part.kind === "data" && toolCard(part);
          if (card) kept.push(card);
        }
      }
      if (event.final) streaming = "";
    } else if (event.kind === "artifact-update") {
      const artifact = event.artifact as { parts: Part[]; metadata?: Json };
      const text = textOf(artifact.parts);
      const cards = artifact.parts.flatMap((p) => (p.kind === "data" ? (toolCard(p) ?? []) : []));
      const partial = meta(event.metadata as Json, "partial") ?? meta(artifact.metadata, "partial");
      if (event.lastChunk || partial === false) {
        streaming = "";
        if (text) kept.push({ kind: "text", text });
        kept.push(...cards);
      } else if (partial === true) streaming += text;
    } else if (event.kind === "message" && event.role !== "user") {
      kept.push({ kind: "text", text: textOf(event.parts as Part[]) });
    }
  }
  return { kept, streaming };
}

/** What kagent's chat shows of a session's stored tasks (`extractMessagesFromTasks`): each message once, by its messageId. */
export function shownAfterReload(tasks: Task[]): (Shown & { messageId: string })[] {
  const seen = new Set<string>();
  const shown: (Shown & { messageId: string })[] = [];
  for (const message of tasks.flatMap((t) => t.history)) {
    if (seen.has(message.messageId)) continue;
    seen.add(message.messageId);
    const { messageId } = message;
    if (message.role === "user") shown.push({ kind: "user", text: textOf(message.parts), messageId });
    else if (message.parts.some((p) => p.kind === "data")) {
      for (const part of message.parts) {
        const card = part.kind === "data" && toolCard(part);
        if (card) shown.push({ ...card, messageId });
      }
    } else shown.push({ kind: "text", text: textOf(message.parts), messageId });
  }
  return shown;
}

/** The user message kagent's chat sends (`createMessage(text, "user", {messageId, contextId})`). */
export function userMessage(text: string, contextId?: string): A2AMessage {
  return JSON.parse(
    JSON.stringify({
      kind: "message",
      messageId: crypto.randomUUID(),
      role: "user",
      parts: [{ kind: "text", text }],
      contextId,
      taskId: undefined,
      metadata: { originalType: undefined, displaySource: "user" },
    }),
  );
}

/** The `data:` payloads of a server-sent-event body, each its `result` when it has one (a2aClient.ts). */
function sseResults(body: string): StreamEvent[] {
  return body
    .split("\n\n")
    .flatMap((event) => event.split("\n").filter((line) => line.startsWith("data: ")))
    .map((line) => JSON.parse(line.slice(6)))
    .map((frame) => frame.result || frame);
}

/**
 * kagent's UI server in front of `backend` (its `BACKEND_INTERNAL_URL`, e.g. `http://retrace:3000/api`), for a
 * browser request that reached it carrying `incoming` (what the authenticating proxy set), forwarding what
 * `KAGENT_ADDITIONAL_FORWARDED_HEADERS` (`forwardedHeaders`) allows besides Authorization and X-Share-Token.
 */
export function kagentUi(backend: string, incoming: Record<string, string>, forwardedHeaders: string[]) {
  const allowed = new Set(["authorization", "x-share-token", ...forwardedHeaders.map((h) => h.toLowerCase())]);
  const auth = Object.fromEntries(Object.entries(incoming).filter(([name]) => allowed.has(name.toLowerCase())));

  async function fetchApi<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<Answer<T>> {
    const response = await fetch(`${backend}${path}`, {
      method: init.method ?? "GET",
      cache: "no-store",
      headers: { ...auth, "Content-Type": "application/json", Accept: "application/json" },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const json = response.headers.get("content-type")?.includes("application/json") ? await response.json() : {};
    if (!response.ok)
      return { status: response.status, error: json.error || json.message || `Request failed with status ${response.status}` };
    return { status: response.status, data: json.data, message: json.message };
  }

  /** kagent's A2A proxy route: the browser's JSON-RPC request, posted on with the forwarded headers. */
  async function a2a(namespace: string, agent: string, request: Json) {
    const response = await fetch(`${backend}/a2a/${namespace}/${agent}/`, {
      method: "POST",
      headers: {
        ...auth,
        "Content-Type": "application/json",
        Accept: "text/event-stream",
        "Cache-Control": "no-cache",
        Connection: "keep-alive",
        "User-Agent": "kagent-ui",
      },
      body: JSON.stringify(request),
    });
    const body = await response.text();
    return {
      status: response.status,
      redirected: response.redirected,
      type: response.headers.get("content-type"),
      events: sseResults(body),
      body,
    };
  }

  return {
    /** The sidebar (`getSessionsForAgent`). */
    sessionsForAgent: (namespace: string, agent: string) => fetchApi<Json[]>(`/sessions/agent/${namespace}/${agent}`),
    /** `createSession`: a new chat, or with `id` kagent's rename of one. */
    createSession: (request: { agent_ref?: string; name?: string; id?: string }) =>
      fetchApi<Json & { id: string; name: string }>("/sessions", { method: "POST", body: request }),
    /** `checkSessionExists` / `getSession`. */
    session: (id: string) => fetchApi<{ session: Json; events: unknown[] }>(`/sessions/${id}`),
    /** `getSessionTasks`: what a reload shows. */
    tasks: (id: string) => fetchApi<Task[]>(`/sessions/${id}/tasks`),
    deleteSession: (id: string) => fetchApi<unknown>(`/sessions/${id}`, { method: "DELETE" }),
    createShare: (id: string, readOnly = true) =>
      fetchApi<Json>(`/sessions/${id}/shares`, { method: "POST", body: { read_only: readOnly } }),
    listShares: (id: string) => fetchApi<Json[]>(`/sessions/${id}/shares`),
    /** A send from the chat (`sendMessageStream`). */
    stream: (namespace: string, agent: string, message: A2AMessage) =>
      a2a(namespace, agent, { jsonrpc: "2.0", method: "message/stream", params: { message, metadata: {} }, id: crypto.randomUUID() }),
    /** Following a task still running when the chat opens (`resubscribeStream`). */
    resubscribe: (namespace: string, agent: string, taskId: string) =>
      a2a(namespace, agent, { jsonrpc: "2.0", method: "tasks/resubscribe", params: { id: taskId }, id: crypto.randomUUID() }),
  };
}
