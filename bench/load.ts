/**
 * `npm run bench -- --load`: many users at once, each running demo-agent turns in its own chat over A2A
 * streaming, spread over the instances given (turn by turn: any instance serves any turn). Reports errors,
 * time to the first streamed token (p50/p99) and turns per second. By default a user sends again the moment
 * a reply ends, which keeps the server saturated; BENCH_LOAD_THINK_MS gives each user a pause between turns
 * (random, 0.5–1.5× that mean) to model people reading and typing, and BENCH_LOAD_RAMP_MS spreads the
 * users' first sends evenly over that long instead of all at once. BENCH_LOAD_INSTANCES sets how many
 * instances serve (bench/run.ts: one on SQLite, two on PostgreSQL by default).
 */
import http from "node:http";
import { Readable } from "node:stream";
import { sseFrames } from "../e2e/support/api-client";

const USERS = Number(process.env.BENCH_LOAD_USERS ?? 100);
const TURNS = Number(process.env.BENCH_LOAD_TURNS ?? 20);
const THINK_MS = Number(process.env.BENCH_LOAD_THINK_MS ?? 0);
const RAMP_MS = Number(process.env.BENCH_LOAD_RAMP_MS ?? 0);

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : Number.NaN;
};

/**
 * Every request goes over kept-alive connections, as browsers' and a load balancer's do. Node accepts one
 * new connection per turn of its event loop (libuv ≥ 1.45): on a saturated server, a burst of 100 new
 * connections waited seconds in the kernel's accept queue before any of our code ran, which no user of a
 * running deployment waits for (the first turns took 1–9 s whenever the token requests' connections
 * had expired before the first sends). An idle connection is closed after IDLE_SOCKET_MS, before the
 * server's keep-alive timeout (Node's 5 s) can close it under a request just sent on it.
 */
const IDLE_SOCKET_MS = 4_000;
const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, timeout: IDLE_SOCKET_MS });

function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: "POST", agent, headers: { ...headers, "content-length": String(Buffer.byteLength(body)) } },
      (response) => resolve(new Response(Readable.toWeb(response) as ReadableStream<Uint8Array>, { status: response.statusCode })),
    );
    request.on("error", reject);
    request.end(body);
  });
}

async function guestToken(base: string): Promise<string> {
  const response = await post(`${base}/api/auth/guest`, "");
  return ((await response.json()) as { data: { token: string } }).data.token;
}

/** One turn: the time to its first streamed word, or the reason it failed. */
async function turn(base: string, token: string, text: string, contextId: string | undefined) {
  const sent = performance.now();
  const message = { kind: "message", role: "user", messageId: crypto.randomUUID(), parts: [{ kind: "text", text }], contextId };
  const response = await post(
    `${base}/api/a2a/demo`,
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/stream", params: { message } }),
    { authorization: `Bearer ${token}`, "content-type": "application/json" },
  );
  if (!response.ok) return { error: `HTTP ${response.status}` };
  let firstToken: number | undefined;
  let context = contextId;
  for await (const frame of sseFrames(response)) {
    if (frame.error || !frame.result) return { error: JSON.stringify(frame.error) };
    const result = frame.result as {
      kind: string;
      contextId: string;
      final?: boolean;
      status?: { state: string; message?: { metadata?: { adk_partial?: boolean } } };
    };
    if (result.kind === "task") context = result.contextId;
    if (firstToken === undefined && result.status?.message?.metadata?.adk_partial) firstToken = performance.now() - sent;
    if (result.final) return result.status?.state === "completed" ? { firstToken, contextId: context } : { error: result.status?.state };
  }
  return { error: "the stream ended before the turn did" };
}

/** One user's chat: `turns` turns, turn t on `baseOf(t)`, each outcome handed to `record` when given. */
async function chat(token: string, turns: number, baseOf: (t: number) => string, record?: (t: number, outcome: Outcome) => void) {
  let contextId: string | undefined;
  for (let t = 0; t < turns; t++) {
    const text = t % 2 === 0 ? `set counter to ${t}` : "what is counter?";
    const outcome = await turn(baseOf(t), token, text, contextId).catch((e: Error) => ({ error: e.message }));
    if ("contextId" in outcome) contextId = outcome.contextId;
    record?.(t, outcome);
    if (THINK_MS > 0 && t < turns - 1) await new Promise((r) => setTimeout(r, THINK_MS * (0.5 + Math.random())));
  }
}

type Outcome = Awaited<ReturnType<typeof turn>> | { error: string };

/**
 * Unmeasured, on each instance before the run: WARM_USERS users at once, WARM_TURNS turns each. A fresh
 * instance compiles its code paths and, on PostgreSQL, prepares and plans each statement on each pooled
 * connection during its first turns. With one warm-up turn per instance, the paced run's first turns took
 * 1.76 s (median) on PostgreSQL, the later ones 35 ms; a deployment serving for a minute is past that.
 */
const WARM_USERS = 20;
const WARM_TURNS = 6;

async function warmUp(base: string) {
  const tokens = await Promise.all(Array.from({ length: WARM_USERS }, () => guestToken(base)));
  await Promise.all(tokens.map((token) => chat(token, WARM_TURNS, () => base)));
}

export async function loadBench(bases: string[]) {
  const tokens = await Promise.all(Array.from({ length: USERS }, () => guestToken(bases[0])));
  for (const base of bases) await warmUp(base);
  const firstTokens: number[] = [];
  const newChat: number[] = [];
  const errors: string[] = [];
  const started = performance.now();
  await Promise.all(
    tokens.map(async (token, user) => {
      if (RAMP_MS > 0) await new Promise((r) => setTimeout(r, (RAMP_MS * user) / USERS));
      await chat(
        token,
        TURNS,
        (t) => bases[(user + t) % bases.length],
        (t, outcome) => {
          if ("error" in outcome) errors.push(String(outcome.error));
          else if (outcome.firstToken !== undefined) (t === 0 ? newChat : firstTokens).push(outcome.firstToken);
        },
      );
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const all = [...newChat, ...firstTokens];
  return {
    instances: bases.length,
    users: USERS,
    thinkMs: THINK_MS,
    rampMs: RAMP_MS,
    turns: USERS * TURNS - errors.length,
    errors: errors.length,
    errorSamples: [...new Set(errors)].slice(0, 3),
    firstTokenP50: percentile(all, 50),
    firstTokenP99: percentile(all, 99),
    /** The first turn of each chat, which also creates it. */
    newChatP50: percentile(newChat, 50),
    newChatP99: percentile(newChat, 99),
    turnsPerSecond: (USERS * TURNS - errors.length) / seconds,
    seconds,
  };
}
