/** A plain HTTP client for one app instance, as an API or A2A integrator would write it (no browser). */
import { type ChildProcess, spawn } from "node:child_process";

export interface Instance {
  base: string;
  token: string;
  json<T = { data: unknown }>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T & { code?: string } }>;
  /** Sends with A2A `message/stream` and yields each streamed result. */
  stream(params: { text: string; contextId?: string; messageId?: string; agent?: string }): AsyncGenerator<Record<string, unknown>>;
  /** A JSON-RPC call: its response, or `{results}` of a streamed one. */
  rpc(method: string, params: unknown, agent?: string): Promise<Record<string, unknown>>;
}

export async function guestToken(base: string): Promise<string> {
  const response = await fetch(`${base}/api/auth/guest`, { method: "POST" });
  return ((await response.json()) as { data: { token: string } }).data.token;
}

/** The JSON payloads of a server-sent event stream, as they arrive. */
export async function* sseFrames(response: Response): AsyncGenerator<Record<string, unknown>> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const data = buffer
        .slice(0, end)
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trim())
        .join("\n");
      buffer = buffer.slice(end + 2);
      if (data) yield JSON.parse(data);
    }
  }
}

async function* sseResults(response: Response): AsyncGenerator<Record<string, unknown>> {
  for await (const frame of sseFrames(response)) yield (frame.result as Record<string, unknown>) ?? frame;
}

/** One app instance seen by one user (the same token works on every instance: they share AUTH_SECRET). */
export function instance(base: string, token: string): Instance {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const post = (agent: string, method: string, params: unknown) =>
    fetch(`${base}/api/a2a/${agent}`, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  return {
    base,
    token,
    async json(method, path, body) {
      const response = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: response.status, body: await response.json() };
    },
    async *stream({ text, contextId, messageId = crypto.randomUUID(), agent = "demo" }) {
      const message = { kind: "message", role: "user", messageId, parts: [{ kind: "text", text }], ...(contextId ? { contextId } : {}) };
      yield* sseResults(await post(agent, "message/stream", { message }));
    },
    async rpc(method, params, agent = "demo") {
      const response = await post(agent, method, params);
      if (response.headers.get("content-type")?.includes("event-stream")) {
        const results = [];
        for await (const result of sseResults(response)) results.push(result);
        return { results };
      }
      return response.json();
    },
  };
}

/** A third app instance the test starts (and kills) itself, on the suite's build and PostgreSQL. */
export async function startInstance(port: number, env: Record<string, string>): Promise<{ base: string; process: ChildProcess }> {
  // Next's own binary, so the signals a test sends reach the server itself.
  const child = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-p", String(port), "-H", "127.0.0.1"], {
    env: { ...process.env, ...env },
    stdio: "ignore",
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 120; i++) {
    const up = await fetch(`${base}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { base, process: child };
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`instance on ${port} did not start`);
}
