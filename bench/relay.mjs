// The floor `npm run bench -- --overhead` measures Retrace against: a bare Node HTTP relay answering the same
// routes as the app — POST /api/auth/guest and A2A v0.3 `message/stream` at POST /api/a2a/{agent} — with no
// auth and no store. It sends the message's text to the model (OPENAI_BASE_URL, streamed) and relays each
// token as the status-update frame Retrace sends for it, between the same opening task and closing frames.
import { randomUUID } from "node:crypto";
import http from "node:http";

const port = Number(process.env.RELAY_PORT ?? 3501);
const model = new URL(`${process.env.OPENAI_BASE_URL}/chat/completions`);
const upstream = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });

const frame = (result) => `data: ${JSON.stringify({ jsonrpc: "2.0", id: 1, result })}\n\n`;

function readBody(req) {
  return new Promise((resolve, reject) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (c) => (raw += c));
    req.on("end", () => resolve(raw));
    req.on("error", reject);
  });
}

/** The model's streamed completion: calls `onToken` per content delta, resolves when it ends. */
function complete(text, signal, onToken) {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ model: process.env.OPENAI_MODEL, stream: true, messages: [{ role: "user", content: text }] });
    const request = http.request(
      model,
      {
        method: "POST",
        agent: upstream,
        signal,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (response) => {
        let buffer = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => {
          buffer += chunk;
          for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
            const data = buffer.slice(6, end);
            buffer = buffer.slice(end + 2);
            if (data === "[DONE]") continue;
            const content = JSON.parse(data).choices[0]?.delta?.content;
            if (content) onToken(content);
          }
        });
        response.on("end", resolve);
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

async function stream(req, res, agent) {
  const rpc = JSON.parse(await readBody(req));
  const message = rpc.params.message;
  const text = message.parts.map((p) => p.text ?? "").join("");
  const contextId = message.contextId ?? randomUUID();
  const taskId = randomUUID();
  const metadata = { kagent_invocation_id: `e-${randomUUID()}`, kagent_agent: agent };
  const abort = new AbortController();
  res.on("close", () => abort.abort());
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const task = { kind: "task", id: taskId, contextId, status: { state: "submitted", timestamp: new Date().toISOString() } };
  res.write(frame({ ...task, history: [{ ...message, contextId, taskId }], metadata }));
  const status = (state, extra) => ({ state, timestamp: new Date().toISOString(), ...extra });
  const agentMessage = (text, more) => ({
    kind: "message",
    messageId: randomUUID(),
    role: "agent",
    parts: [{ kind: "text", text }],
    contextId,
    taskId,
    metadata: { kagent_invocation_id: metadata.kagent_invocation_id, kagent_author: agent, ...more },
  });
  let reply = "";
  try {
    await complete(text, abort.signal, (token) => {
      reply += token;
      const update = { kind: "status-update", taskId, contextId, final: false, metadata };
      res.write(frame({ ...update, status: status("working", { message: agentMessage(token, { adk_partial: true }) }) }));
    });
  } catch {
    return res.end();
  }
  const stored = agentMessage(reply, {});
  res.write(frame({ kind: "status-update", taskId, contextId, final: false, metadata, status: status("working", { message: stored }) }));
  const artifact = { artifactId: stored.messageId, parts: stored.parts };
  res.write(frame({ kind: "artifact-update", taskId, contextId, artifact, append: false, lastChunk: true, metadata }));
  res.end(frame({ kind: "status-update", taskId, contextId, final: true, metadata, status: status("completed") }));
}

http
  .createServer((req, res) => {
    if (req.url === "/api/health") return res.end("ok");
    if (req.method === "POST" && req.url === "/api/auth/guest") {
      res.writeHead(201, { "content-type": "application/json" });
      return res.end(JSON.stringify({ data: { token: "relay" } }));
    }
    const a2a = req.method === "POST" && req.url?.match(/^\/api\/a2a\/([^/]+)$/);
    if (a2a) {
      return void stream(req, res, a2a[1]).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    }
    res.writeHead(404);
    res.end();
  })
  .listen(port, "127.0.0.1", () => console.log(`relay on ${port}`));
