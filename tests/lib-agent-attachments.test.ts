/**
 * What a model agent sends of attachments (docs/semantics.md, "Attachments"), on both dialects, to an
 * OpenAI-compatible endpoint that records what it receives: images and PDFs as the AI SDK's file parts (their
 * bytes the upload's, by SHA-256), a PDF as its text where the agent says so, text files as text, other files as
 * a note — and only attachments of the effective history: none after a rewind before their turn, back after undo.
 */
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { modelAgent } from "@/lib/agent/model-agent";
import { startTurn } from "@/lib/agent/runtime";
import { rewindSession, storeUpload } from "@/lib/db/queries";
import { fixture } from "./helpers";
import { tinyPdf } from "./support/files";

type Content = string | { type: string; text?: string; image_url?: { url: string }; file?: { filename: string; file_data: string } }[];
let server: Server;
let port = 0;
let received: { messages: { role: string; content: Content }[] }[] = [];

beforeAll(async () => {
  server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    received.push(JSON.parse(body));
    res.writeHead(200, { "content-type": "text/event-stream" });
    const chunk = {
      id: "c",
      object: "chat.completion.chunk",
      created: 1,
      model: "m",
      choices: [{ index: 0, delta: { content: "ok" }, finish_reason: "stop" }],
    };
    res.end(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  server.close();
});
beforeEach(() => {
  received = [];
});

const agent = (pdfInput: "file" | "text" = "file") =>
  modelAgent({
    name: "assistant",
    description: "",
    instruction: "",
    models: [{ name: "fake", model: "fake", baseURL: `http://127.0.0.1:${port}/v1` }],
    pdfInput,
    mcp: [],
  });

const sha = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");
/** The bytes of a `data:` URL. */
const dataBytes = (url: string) => Buffer.from(url.slice(url.indexOf(",") + 1), "base64");

/** The user messages' parts of the last request the endpoint received. */
const userParts = () =>
  (received.at(-1)?.messages ?? [])
    .filter((m) => m.role === "user")
    .flatMap((m) => (typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content));

async function turn(
  f: { userId: string; sessionId: string },
  text: string,
  files: { data: Buffer; name: string; type: string }[] = [],
  pdf?: "file" | "text",
) {
  const attachments = [];
  for (const file of files)
    attachments.push({ upload: (await storeUpload(f.userId, [file.data], { filename: file.name, mimeType: file.type })).id });
  const started = await startTurn({ userId: f.userId, sessionId: f.sessionId, agent: agent(pdf), text, attachments });
  expect((await started.done).status.state).toBe("completed");
  return started;
}

const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(500, 7)]);

describe("a model agent's attachments", () => {
  it("sends images and PDFs as file parts whose bytes are the upload's, text files as text, other files as a note", async () => {
    const f = await fixture({}, "assistant");
    const pdf = tinyPdf(["Quarterly figures"]);
    await turn(f, "what are these?", [
      { data: png, name: "dot.png", type: "image/png" },
      { data: pdf, name: "report.pdf", type: "application/pdf" },
      { data: Buffer.from("alpha\nbeta\n"), name: "notes.md", type: "text/markdown" },
      { data: Buffer.from([1, 2, 3]), name: "data.zip", type: "application/zip" },
    ]);
    const [text, image, file, notes, other] = userParts();
    expect(text).toEqual({ type: "text", text: "what are these?" });
    expect(image?.type).toBe("image_url");
    expect(sha(dataBytes(image?.image_url?.url ?? ""))).toBe(sha(png));
    expect(file?.file?.filename).toBe("report.pdf");
    expect(sha(dataBytes(file?.file?.file_data ?? ""))).toBe(sha(pdf));
    expect(notes?.text).toContain("Attached file notes.md (text/markdown)");
    expect(notes?.text).toContain("alpha\nbeta");
    expect(other?.text).toBe("[Attached file data.zip (application/zip, 3 B): its content cannot be shown to you]");
  });

  it("sends a PDF as its text to an agent whose endpoint reads no PDFs (pdf_input: text)", async () => {
    const f = await fixture({}, "assistant");
    await turn(
      f,
      "summarise",
      [{ data: tinyPdf(["Hello page one", "Second page here"]), name: "doc.pdf", type: "application/pdf" }],
      "text",
    );
    const [, pdf] = userParts();
    expect(pdf).toEqual({ type: "text", text: expect.stringContaining("its text (2 pages):\n\nHello page one\nSecond page here") });
  });

  it("sends no byte of a rewound turn's files; undo brings them back", async () => {
    const f = await fixture({}, "assistant");
    const attached = await turn(f, "look", [{ data: png, name: "dot.png", type: "image/png" }]);
    await turn(f, "and now?");
    expect(userParts().filter((p) => p.type === "image_url")).toHaveLength(1);
    const marker = await rewindSession(f.userId, f.sessionId, attached.invocationId);
    await turn(f, "anything attached?");
    expect(JSON.stringify(received.at(-1))).not.toContain(png.toString("base64").slice(0, 40));
    expect(userParts().filter((p) => p.type !== "text")).toEqual([]);
    // Undo the rewind and the one after it: the attaching turn is back in the history, and so are its bytes.
    const latest = await rewindSession(f.userId, f.sessionId, marker.event.invocation_id, "undo");
    expect(latest.event).toBeDefined();
    await turn(f, "and again?");
    const images = userParts().filter((p) => p.type === "image_url");
    expect(images).toHaveLength(1);
    expect(sha(dataBytes(images[0].image_url?.url ?? ""))).toBe(sha(png));
  });
});
