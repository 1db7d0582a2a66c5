/**
 * Attachments over HTTP and A2A (docs/api.md, "Uploads" and "Sending messages"), on both dialects: the upload
 * route streams a body into the store, its file is served sandboxed, another user's upload is a 404 everywhere,
 * and A2A file parts travel both ways in v0.3 and v1.0 — bytes in, the chat's file route out.
 */
import { createHash, randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as upload from "@/app/api/uploads/[id]/route";
import * as uploads from "@/app/api/uploads/route";
import { listArtifacts } from "@/lib/db/queries";
import { legacyMessage, rpc, v1Message } from "./support/a2a";
import { browser, call, newGuest, routes, snapshot } from "./support/api";

const sha = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

let user: { user_id: string; token: string };
beforeEach(async () => {
  process.env.DEMO_WORD_DELAY_MS = "0";
  user = await newGuest();
});
afterEach(() => {
  delete process.env.RETRACE_MAX_UPLOAD_BYTES;
});

/** `POST /api/uploads?filename=…` with `data` as the body. */
const post = (
  data: Uint8Array,
  filename: string,
  type = "application/octet-stream",
  token = user.token,
  headers: Record<string, string> = {},
) =>
  call(uploads.POST, {
    method: "POST",
    path: `/api/uploads?filename=${encodeURIComponent(filename)}`,
    token,
    raw: new Uint8Array(data),
    headers: { "content-type": type, ...headers },
  });

describe("POST /api/uploads", () => {
  it("stores the body as an upload: 201 with its id, name, type, size and SHA-256", async () => {
    const data = randomBytes(300 * 1024);
    const { status, json } = await post(data, "photo.png", "image/png");
    expect(status).toBe(201);
    expect(json.data).toMatchObject({ filename: "photo.png", mime_type: "image/png", size: data.length, sha256: sha(data) });
    const served = await call(upload.GET, { token: user.token, params: { id: json.data.id } });
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(served.headers.get("content-security-policy")).toBe("sandbox");
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("names a source file's type by its name when the browser gave a generic or wrong one", async () => {
    const ts = await post(Buffer.from("export const x = 1;\n"), "main.ts", "video/mp2t");
    expect(ts.json.data.mime_type).toBe("text/plain");
    const bare = await post(Buffer.from("%PDF-1.4"), "report.pdf", "");
    expect(bare.json.data.mime_type).toBe("application/pdf");
  });

  it("refuses a missing or unsafe name (400), a declared size past the limit (413) and a cross-site cookie (403), storing nothing", async () => {
    process.env.RETRACE_MAX_UPLOAD_BYTES = "1000";
    const before = await snapshot();
    expect((await call(uploads.POST, { method: "POST", path: "/api/uploads", token: user.token, raw: new Uint8Array(3) })).status).toBe(
      400,
    );
    expect((await post(Buffer.from("x"), "../etc/passwd")).status).toBe(400);
    const big = await post(randomBytes(2000), "big.bin");
    expect(big.status).toBe(413);
    expect(big.json.code).toBe("payload_too_large");
    const forged = await call(uploads.POST, {
      method: "POST",
      path: "/api/uploads?filename=x.txt",
      raw: new Uint8Array(3),
      headers: { ...browser(user.token, "http://evil.example"), "content-type": "text/plain" },
    });
    expect(forged.status).toBe(403);
    expect(await snapshot()).toEqual(before);
  });

  it("another user's upload is a 404 to read and to remove; the owner removes it", async () => {
    const { json } = await post(Buffer.from("mine"), "mine.txt", "text/plain");
    const stranger = await newGuest();
    expect((await call(upload.GET, { token: stranger.token, params: { id: json.data.id } })).status).toBe(404);
    expect((await call(upload.DELETE, { method: "DELETE", token: stranger.token, params: { id: json.data.id } })).status).toBe(404);
    expect((await call(upload.DELETE, { method: "DELETE", token: user.token, params: { id: json.data.id } })).status).toBe(200);
    expect((await call(upload.GET, { token: user.token, params: { id: json.data.id } })).status).toBe(404);
  });
});

describe("A2A file parts", () => {
  it("v0.3: a message's bytes become an attachment; the task's message gives it back as a file part at the chat's file route", async () => {
    const data = Buffer.from("line one\nline two\n");
    const message = {
      ...legacyMessage("here is a file"),
      parts: [
        { kind: "text", text: "here is a file" },
        { kind: "file", file: { bytes: data.toString("base64"), mimeType: "text/plain", name: "lines.txt" } },
      ],
    };
    const { json } = await rpc(user.token, "message/send", { message });
    const task = json.result;
    expect(task.history[0].parts[1]).toEqual({
      kind: "file",
      file: {
        uri: `http://localhost/api/sessions/${task.contextId}/artifacts/lines.txt?version=0`,
        mimeType: "text/plain",
        name: "lines.txt",
      },
      metadata: { retrace_size: data.length, retrace_sha256: sha(data), retrace_version: 0 },
    });
    expect(task.history.at(-1).parts[0].text).toContain("**lines.txt** (text, 2 lines, 18 B)");
    const file = await call(routes.artifactFile.GET, {
      path: `/api/sessions/${task.contextId}/artifacts/lines.txt?version=0`,
      token: user.token,
      params: { id: task.contextId, filename: "lines.txt" },
    });
    expect(file.text).toBe(data.toString());
    // The upload made for the bytes is gone: the file is the chat's.
    expect((await listArtifacts(user.user_id, task.contextId)).map((a) => a.filename)).toEqual(["lines.txt"]);
  });

  it("v1.0: raw bytes in, a url part out; a url naming the sender's upload (relative or at this origin) attaches it", async () => {
    const data = randomBytes(2000);
    const raw = {
      ...v1Message("bytes"),
      parts: [{ text: "bytes" }, { raw: data.toString("base64"), mediaType: "image/png", filename: "dot.png" }],
    };
    const sent = (await rpc(user.token, "SendMessage", { message: raw }, { version: "1.0" })).json.result.task;
    expect(sent.history[0].parts[1]).toEqual({
      url: `http://localhost/api/sessions/${sent.contextId}/artifacts/dot.png?version=0`,
      mediaType: "image/png",
      filename: "dot.png",
      metadata: { retrace_size: 2000, retrace_sha256: sha(data), retrace_version: 0 },
    });
    const first = await post(Buffer.from("a"), "a.txt", "text/plain");
    const second = await post(Buffer.from("b"), "b.txt", "text/plain");
    const byUrl = {
      ...v1Message("", sent.contextId),
      parts: [
        { url: `/api/uploads/${first.json.data.id}`, filename: "a.txt" },
        { url: `http://localhost/api/uploads/${second.json.data.id}`, filename: "b.txt" },
      ],
    };
    const attached = (await rpc(user.token, "SendMessage", { message: byUrl }, { version: "1.0" })).json.result.task;
    expect(attached.history[0].parts.map((p: { filename: string }) => p.filename)).toEqual(["a.txt", "b.txt"]);
    expect((await listArtifacts(user.user_id, sent.contextId)).map((a) => a.filename)).toEqual(["a.txt", "b.txt", "dot.png"]);
  });

  it("a url this app does not serve, or another user's upload, is refused and nothing is written", async () => {
    const stranger = await newGuest();
    const theirs = await post(Buffer.from("secret"), "secret.txt", "text/plain", stranger.token);
    const before = await snapshot();
    for (const url of [
      "http://169.254.169.254/latest/meta-data",
      "file:///etc/passwd",
      `http://other.example/api/uploads/${theirs.json.data.id}`,
    ]) {
      const message = { ...legacyMessage(""), parts: [{ kind: "file", file: { uri: url, name: "x" } }] };
      const { json } = await rpc(user.token, "message/send", { message });
      expect(json.error).toMatchObject({ code: -32602, message: expect.stringContaining("upload of this app") });
    }
    const message = { ...legacyMessage(""), parts: [{ kind: "file", file: { uri: `/api/uploads/${theirs.json.data.id}`, name: "x" } }] };
    const { json } = await rpc(user.token, "message/send", { message });
    expect(json.error.data.code).toBe("not_found");
    const after = await snapshot();
    // Only the refused send's own chat row may differ: none was made.
    expect(after.sessions).toEqual(before.sessions);
    expect(after.events).toEqual(before.events);
  });

  it("a message may send a file of its chat again by its url (Regenerate, Edit & resend)", async () => {
    const data = Buffer.from("same file");
    const message = {
      ...legacyMessage("first"),
      parts: [
        { kind: "text", text: "first" },
        { kind: "file", file: { bytes: data.toString("base64"), name: "f.txt", mimeType: "text/plain" } },
      ],
    };
    const first = (await rpc(user.token, "message/send", { message })).json.result;
    const again = {
      ...legacyMessage("regenerate", first.contextId, {
        kagent_rewind_before_invocation_id: first.metadata.kagent_invocation_id,
        retrace_rewind_reason: "regenerate",
      }),
      parts: [
        { kind: "text", text: "first" },
        { kind: "file", file: { uri: first.history[0].parts[1].file.uri, name: "f.txt" } },
      ],
    };
    const second = (await rpc(user.token, "message/send", { message: again })).json.result;
    expect(second.history[0].parts[1].file).toMatchObject({ name: "f.txt", mimeType: "text/plain" });
    expect(second.history[0].parts[1].metadata.retrace_sha256).toBe(sha(data));
    expect((await listArtifacts(user.user_id, first.contextId)).map((a) => [a.filename, a.version])).toEqual([["f.txt", 2]]);
  });
});
