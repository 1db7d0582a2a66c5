import { call, routes } from "./api";

// biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON-RPC answered
export type Rpc = { jsonrpc: "2.0"; id: number | string | null; result?: any; error?: { code: number; message: string; data?: any } };

/** The `data:` frames of a server-sent-event body, parsed; a frame after `event: error` keeps that name. */
export function sseFrames(text: string): (Rpc & { event?: string })[] {
  return text
    .split("\n\n")
    .filter(Boolean)
    .map((frame) => {
      const lines = frame.split("\n");
      const event = lines
        .find((l) => l.startsWith("event:"))
        ?.slice(6)
        .trim();
      const data = lines
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trimStart())
        .join("\n");
      return { ...JSON.parse(data), ...(event ? { event } : {}) };
    });
}

/** One JSON-RPC call to `POST /api/a2a/{agent}`; `version` sets the A2A-Version header (absent means v0.3). */
export async function rpc(token: string, method: string, params: unknown, opts: { version?: string; agent?: string } = {}) {
  const response = await call(routes.a2a.POST, {
    method: "POST",
    token,
    params: { agent: opts.agent ?? "demo" },
    body: { jsonrpc: "2.0", id: 1, method, params },
    headers: opts.version ? { "a2a-version": opts.version } : {},
  });
  const streamed = response.headers.get("content-type")?.startsWith("text/event-stream") ?? false;
  return { ...response, streamed, frames: streamed ? sseFrames(response.text) : [] };
}

/** A v0.3 (kagent-style) user message. */
export const legacyMessage = (text: string, contextId?: string, metadata?: Record<string, unknown>) => ({
  kind: "message",
  role: "user",
  messageId: crypto.randomUUID(),
  parts: text ? [{ kind: "text", text }] : [],
  ...(contextId ? { contextId } : {}),
  ...(metadata ? { metadata } : {}),
});

/** A v1.0 (proto-JSON) user message. */
export const v1Message = (text: string, contextId?: string, metadata?: Record<string, unknown>) => ({
  role: "ROLE_USER",
  messageId: crypto.randomUUID(),
  parts: text ? [{ text }] : [],
  ...(contextId ? { contextId } : {}),
  ...(metadata ? { metadata } : {}),
});
