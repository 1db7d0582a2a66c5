import * as unknown from "@/app/api/[[...path]]/route";
import * as agentCard from "@/app/api/a2a/[agent]/.well-known/agent-card.json/route";
import * as a2a from "@/app/api/a2a/[agent]/route";
import * as appState from "@/app/api/agents/[agent]/state/route";
import * as agents from "@/app/api/agents/route";
import * as guest from "@/app/api/auth/guest/route";
import * as health from "@/app/api/health/route";
import * as search from "@/app/api/search/route";
import * as artifactFile from "@/app/api/sessions/[id]/artifacts/[filename]/route";
import * as artifacts from "@/app/api/sessions/[id]/artifacts/route";
import * as events from "@/app/api/sessions/[id]/events/route";
import * as fork from "@/app/api/sessions/[id]/fork/route";
import * as label from "@/app/api/sessions/[id]/labels/[invocationId]/route";
import * as rewind from "@/app/api/sessions/[id]/rewind/route";
import * as session from "@/app/api/sessions/[id]/route";
import * as switchTo from "@/app/api/sessions/[id]/switch/route";
import * as tasks from "@/app/api/sessions/[id]/tasks/route";
import * as tree from "@/app/api/sessions/[id]/tree/route";
import * as versions from "@/app/api/sessions/[id]/versions/route";
import * as sessions from "@/app/api/sessions/route";
import { tableRows } from "./db";

type Route = (request: Request, context: { params: Promise<never> }) => Promise<Response>;

/** Every route handler of the HTTP API, by the path it serves. */
export const routes = {
  a2a,
  agentCard,
  guest,
  agents,
  appState,
  artifactFile,
  artifacts,
  events,
  fork,
  health,
  label,
  rewind,
  search,
  session,
  switchTo,
  tasks,
  tree,
  versions,
  sessions,
  unknown,
};

export interface Call {
  method?: string;
  path?: string;
  token?: string | null;
  body?: unknown;
  /** A body sent as is (e.g. malformed JSON, a ZIP file). */
  raw?: string | Uint8Array<ArrayBuffer>;
  headers?: Record<string, string>;
  params?: Record<string, string>;
}

/** Calls a route handler the way Next.js does, and reads back status and JSON. */
export async function call(route: unknown, { method = "GET", path = "/api/x", token, body, raw, headers = {}, params = {} }: Call = {}) {
  const request = new Request(`http://localhost${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined || raw !== undefined ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  const response = await (route as Route)(request, { params: Promise.resolve(params as never) });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON a route answered
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text, headers: response.headers };
}

/** Headers of a browser request carrying `token` as the cookie, sent from `origin` when given. */
export function browser(token: string, origin?: string): Record<string, string> {
  return { cookie: `retrace_token=${token}`, ...(origin ? { origin } : {}) };
}

export async function newGuest() {
  const { json } = await call(routes.guest.POST, { method: "POST" });
  return json.data as { user_id: string; token: string };
}

/** Every row of every table, in a stable order: "nothing was written" means before equals after. */
export const snapshot = tableRows;

/** A guest with a chat of three demo-agent turns (state and a file), made through the A2A endpoint. */
export async function guestWithChat() {
  process.env.DEMO_WORD_DELAY_MS = "0";
  const user = await newGuest();
  let contextId: string | undefined;
  for (const text of ["set color to red", "save file notes.txt with content hi", "set color to blue"]) {
    const message = { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text }], contextId };
    const { json } = await call(routes.a2a.POST, {
      method: "POST",
      token: user.token,
      params: { agent: "demo" },
      body: { jsonrpc: "2.0", id: 1, method: "message/send", params: { message } },
    });
    contextId = json.result.contextId;
  }
  const sessionId = contextId!;
  const { json } = await call(routes.tasks.GET, { token: user.token, params: { id: sessionId } });
  const invocations = (json.data as { metadata: { kagent_invocation_id: string } }[]).map((t) => t.metadata.kagent_invocation_id);
  return { ...user, sessionId, invocations };
}
