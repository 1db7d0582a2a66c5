// A small OpenAI-compatible Chat Completions server for tests and benches: deterministic replies, tool calls,
// failures on demand, token usage as OpenAI reports it (the stream's last chunk when asked with
// `stream_options.include_usage`), and a record of every request it received and the usage it reported
// (GET /__requests; FAKE_OPENAI_RECORD=0 keeps none, for long benches), with the files its user messages carried
// (images and PDFs as data URLs: their type, name, size and SHA-256). "stream N tokens every M ms" answers
// N tokens M ms apart, the first one at once.
import { createHash } from "node:crypto";
import { createServer } from "node:http";

const port = Number(process.env.FAKE_OPENAI_PORT ?? 3211);
const record = process.env.FAKE_OPENAI_RECORD !== "0";
const requests = [];

const lastUserText = (messages) => {
  const user = [...messages].reverse().find((m) => m.role === "user");
  if (!user) return "";
  return typeof user.content === "string" ? user.content : user.content.map((p) => p.text ?? "").join("");
};

/** The bytes of a `data:` URL's base64. */
const dataBytes = (url) => Buffer.from(url.slice(url.indexOf(",") + 1), "base64");

/** The files the request's user messages carried, in order: what the model received of each. */
function filesOf(messages) {
  const files = [];
  for (const message of messages) {
    if (message.role !== "user" || typeof message.content === "string") continue;
    for (const part of message.content) {
      const url = part.type === "image_url" ? part.image_url?.url : part.type === "file" ? part.file?.file_data : undefined;
      if (typeof url !== "string") continue;
      const bytes = dataBytes(url);
      files.push({
        type: part.type,
        mediaType: url.slice(5, url.indexOf(";")),
        filename: part.file?.filename ?? null,
        size: bytes.length,
        sha256: createHash("sha256").update(bytes).digest("hex"),
      });
    }
  }
  return files;
}

/** Decides the model's answer from the conversation it was sent; a model other than `fake-model` says who it is first. */
function reply(messages, model) {
  const last = messages.at(-1);
  if (last?.role === "tool") return { text: `Done: ${last.content}` };
  const text = lastUserText(messages);
  const remember = text.match(/remember (\S+) is (.+)/i);
  if (remember) {
    return { toolCall: { name: "update_state", args: { key: remember[1], value: remember[2].trim() } } };
  }
  if (/fail 401/i.test(text)) return { status: 401, error: "Incorrect API key provided" };
  if (/fail 429/i.test(text)) return { status: 429, error: "Rate limit reached" };
  if (/malformed/i.test(text)) return { malformed: true };
  const stream = text.match(/^stream (\d+) tokens every (\d+) ms$/);
  if (stream) return { tokens: Number(stream[1]), delay: Number(stream[2]) };
  if (/slow/i.test(text)) return { text: Array.from({ length: 200 }, (_, i) => `word${i}`).join(" "), delay: 100 };
  if (/take your time/i.test(text)) return { text: Array.from({ length: 30 }, (_, i) => `step${i}`).join(" "), delay: 100 };
  const users = messages.filter((m) => m.role === "user").length;
  const files = filesOf(messages).length;
  const seen = files ? ` and ${files} file${files === 1 ? "" : "s"}` : "";
  const who = model && model !== "fake-model" ? `${model} here. ` : "";
  return { text: `${who}You said: ${text} (I can see ${users} user message${users === 1 ? "" : "s"}${seen})` };
}

const words = (value) => (typeof value === "string" ? value : JSON.stringify(value ?? "")).split(/\s+/).filter(Boolean).length;

/** Tokens as this fake counts them: a word of the messages sent is a prompt token, a word of the answer (12 for a tool call; N for "stream N tokens") a completion token. */
function usageOf(messages, answer) {
  const prompt = messages.reduce((sum, m) => sum + words(m.content), 0);
  const completion = answer.toolCall ? 12 : (answer.tokens ?? words(answer.text));
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function chunk(id, delta, finish = null) {
  return `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 1, model: "fake-model", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

async function completions(res, body, entry) {
  const answer = reply(body.messages ?? [], body.model);
  if (answer.status) {
    res.writeHead(answer.status, { "content-type": "application/json" });
    return res.end(JSON.stringify({ error: { message: answer.error, type: "invalid_request_error" } }));
  }
  const id = `chatcmpl-${requests.length}`;
  if (!body.stream) {
    const message = answer.toolCall
      ? {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: `call_${requests.length}`,
              type: "function",
              function: { name: answer.toolCall.name, arguments: JSON.stringify(answer.toolCall.args) },
            },
          ],
        }
      : { role: "assistant", content: answer.text };
    entry.usage = usageOf(body.messages ?? [], answer);
    res.writeHead(200, { "content-type": "application/json" });
    return res.end(
      JSON.stringify({
        id,
        object: "chat.completion",
        created: 1,
        model: "fake-model",
        choices: [{ index: 0, message, finish_reason: answer.toolCall ? "tool_calls" : "stop" }],
        usage: entry.usage,
      }),
    );
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  let closed = false;
  // The client hung up before the answer ended: Stop must cancel the request to the model.
  res.on("close", () => {
    closed = true;
    if (!res.writableFinished) entry.aborted = true;
  });
  if (answer.malformed) {
    res.write(chunk(id, { role: "assistant", content: "Partial " }));
    res.write("data: {this is not json\n\n");
    return res.end();
  }
  res.write(chunk(id, { role: "assistant", content: "" }));
  if (answer.toolCall) {
    res.write(
      chunk(id, {
        tool_calls: [
          {
            index: 0,
            id: `call_${requests.length}`,
            type: "function",
            function: { name: answer.toolCall.name, arguments: JSON.stringify(answer.toolCall.args) },
          },
        ],
      }),
    );
    res.write(chunk(id, {}, "tool_calls"));
  } else if (answer.tokens !== undefined) {
    // Each token its own write, the first at once: a model with no latency of its own.
    for (let i = 0; i < answer.tokens; i++) {
      if (closed) return;
      if (i > 0) await sleep(answer.delay);
      res.write(chunk(id, { content: `t${i} ` }));
    }
    res.write(chunk(id, {}, "stop"));
  } else {
    for (const word of answer.text.split(/(?<= )/)) {
      if (closed) return;
      res.write(chunk(id, { content: word }));
      await sleep(answer.delay ?? 5);
    }
    res.write(chunk(id, {}, "stop"));
  }
  if (body.stream_options?.include_usage) {
    entry.usage = usageOf(body.messages ?? [], answer);
    res.write(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 1, model: "fake-model", choices: [], usage: entry.usage })}\n\n`,
    );
  }
  res.write("data: [DONE]\n\n");
  res.end();
}

createServer((req, res) => {
  let raw = "";
  req.on("data", (c) => (raw += c));
  req.on("end", () => {
    if (req.url === "/health") return res.end("ok");
    if (req.url === "/__requests") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify(requests));
    }
    if (req.url === "/__reset" && req.method === "POST") {
      requests.length = 0;
      return res.end("ok");
    }
    if (req.url?.endsWith("/chat/completions") && req.method === "POST") {
      const body = JSON.parse(raw || "{}");
      const entry = {
        headers: { authorization: req.headers.authorization ?? null },
        body,
        files: filesOf(body.messages ?? []),
        aborted: false,
        usage: null,
      };
      if (record) requests.push(entry);
      return void completions(res, body, entry);
    }
    res.writeHead(404);
    res.end();
  });
}).listen(port, "127.0.0.1", () => console.log(`fake OpenAI on ${port}`));
