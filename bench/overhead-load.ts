/**
 * The load generator of `npm run bench -- --overhead` (bench/overhead.ts), in a process of its own so its work
 * is never counted as the server's: users talking to the `assistant` over A2A v0.3 `message/stream`, each turn
 * asking the fake model for `tokens` tokens `intervalMs` apart. Its job comes as JSON in argv[2]; it prints
 * its figures as one JSON line. A `hold` job opens `users` streams, prints `{"open": n}` once each has had its
 * first token, and closes them when its standard input ends.
 */
import http from "node:http";

interface Job {
  mode: "run" | "hold";
  bases: string[];
  users: number;
  turns: number;
  tokens: number;
  intervalMs: number;
  /** Each turn is sent after a pause drawn from 0 to this (the first one too: users arrive spread out). */
  thinkMs: number;
}

const job = JSON.parse(process.argv[2]) as Job;
const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, timeout: 4_000 });

function post(url: string, body: string, headers: Record<string, string>, signal?: AbortSignal): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: "POST",
      agent,
      signal,
      headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
    });
    request.on("response", resolve);
    request.on("error", reject);
    request.end(body);
  });
}

async function guestToken(base: string): Promise<string> {
  const response = await post(`${base}/api/auth/guest`, "", {});
  let raw = "";
  for await (const chunk of response) raw += chunk;
  return (JSON.parse(raw) as { data: { token: string } }).data.token;
}

interface Outcome {
  contextId?: string;
  /** From the request's first byte sent to the first streamed token read. */
  firstToken?: number;
  /** Between consecutive streamed tokens, as read. */
  gaps: number[];
  error?: string;
}

type Result = {
  kind: string;
  contextId?: string;
  final?: boolean;
  status?: { state: string; message?: { metadata?: { adk_partial?: boolean } } };
};

/** One turn, read frame by frame as its bytes arrive; `onFirst` is called at its first token. */
async function turn(
  base: string,
  token: string,
  contextId: string | undefined,
  signal?: AbortSignal,
  onFirst?: () => void,
): Promise<Outcome> {
  const text = `stream ${job.tokens} tokens every ${job.intervalMs} ms`;
  const message = { kind: "message", role: "user", messageId: crypto.randomUUID(), parts: [{ kind: "text", text }], contextId };
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/stream", params: { message } });
  const sent = performance.now();
  const outcome: Outcome = { contextId, gaps: [] };
  const response = await post(
    `${base}/api/a2a/assistant`,
    body,
    { authorization: `Bearer ${token}`, "content-type": "application/json" },
    signal,
  );
  if (response.statusCode !== 200) return { ...outcome, error: `HTTP ${response.statusCode}` };
  let buffer = "";
  let last: number | undefined;
  response.setEncoding("utf8");
  for await (const chunk of response) {
    const at = performance.now();
    buffer += chunk;
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const data = buffer.slice(buffer.indexOf("data:") + 5, end);
      buffer = buffer.slice(end + 2);
      const frame = JSON.parse(data) as { result?: Result; error?: unknown };
      const result = frame.result;
      if (!result) return { ...outcome, error: JSON.stringify(frame.error) };
      if (result.kind === "task") outcome.contextId = result.contextId;
      if (result.status?.message?.metadata?.adk_partial) {
        if (last === undefined) {
          outcome.firstToken = at - sent;
          onFirst?.();
        } else outcome.gaps.push(at - last);
        last = at;
      }
      if (result.final) return result.status?.state === "completed" ? outcome : { ...outcome, error: result.status?.state };
    }
  }
  return { ...outcome, error: "the stream ended before the turn did" };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(values: number[], p: number) {
  const sorted = Float64Array.from(values).sort();
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : Number.NaN;
}

async function run() {
  const tokens = await Promise.all(Array.from({ length: job.users }, () => guestToken(job.bases[0])));
  // Signed up: the parent starts counting the server's CPU now (turns, not sign-ups), then says go (or just closes stdin).
  console.log(JSON.stringify({ ready: true }));
  await new Promise((resolve) => process.stdin.once("data", resolve).once("end", resolve));
  const firstTokens: number[] = [];
  const distortion: number[] = [];
  const errors: string[] = [];
  let turns = 0;
  const started = performance.now();
  await Promise.all(
    tokens.map(async (token, user) => {
      let contextId: string | undefined;
      for (let t = 0; t < job.turns; t++) {
        await pause(Math.random() * job.thinkMs);
        const outcome = await turn(job.bases[(user + t) % job.bases.length], token, contextId).catch(
          (e: Error): Outcome => ({ gaps: [], error: e.message }),
        );
        contextId = outcome.contextId;
        if (outcome.error) errors.push(outcome.error);
        else turns += 1;
        if (outcome.firstToken !== undefined) firstTokens.push(outcome.firstToken);
        for (const gap of outcome.gaps) distortion.push(Math.abs(gap - job.intervalMs));
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    turns,
    errors: errors.length,
    errorSamples: [...new Set(errors)].slice(0, 3),
    seconds,
    turnsPerSecond: turns / seconds,
    firstTokenP50: percentile(firstTokens, 50),
    firstTokenP99: percentile(firstTokens, 99),
    gapDistortionP50: percentile(distortion, 50),
    gapDistortionP99: percentile(distortion, 99),
  };
}

async function hold() {
  const tokens = await Promise.all(Array.from({ length: job.users }, (_, i) => guestToken(job.bases[i % job.bases.length])));
  const abort = new AbortController();
  let open = 0;
  let failed = 0;
  const streams = tokens.map((token, user) =>
    pause((user / job.users) * job.thinkMs)
      .then(() => turn(job.bases[user % job.bases.length], token, undefined, abort.signal, () => (open += 1)))
      .then(
        (outcome) => {
          if (outcome.error && !abort.signal.aborted) failed += 1;
        },
        () => {
          if (!abort.signal.aborted) failed += 1;
        },
      ),
  );
  while (open + failed < job.users) await pause(100);
  console.log(JSON.stringify({ open, failed }));
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.on("end", resolve));
  abort.abort();
  await Promise.all(streams);
  return { open, failed };
}

(job.mode === "hold" ? hold() : run()).then(
  (figures) => {
    console.log(JSON.stringify(figures));
    process.exit(0);
  },
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
