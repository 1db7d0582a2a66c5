import { describe, expect, it } from "vitest";
import { toModelMessages } from "@/lib/agent/model-messages";
import { parseConfig } from "@/lib/config";
import {
  attachmentKey,
  attachmentKind,
  attachmentPart,
  attachmentsOf,
  attachmentType,
  readableSize,
  uniqueNames,
} from "@/lib/session/attachments";
import type { AdkEvent, Part } from "@/lib/session/types";

const file = { filename: "dot.png", version: 2, mime_type: "image/png", size: 500, sha256: "a".repeat(64) };
const user = (parts: Part[]): AdkEvent => ({
  id: "u",
  invocation_id: "e-1",
  author: "user",
  timestamp: 1,
  content: { role: "user", parts },
});

describe('attachments in the domain (docs/semantics.md, "Attachments")', () => {
  it("are parts of the user's event: ADK's file_data with a chat-relative URI, and the version they are", () => {
    const part = attachmentPart({ ...file, filename: "my report?.pdf", mime_type: "application/pdf" });
    expect(part.file_data).toEqual({
      file_uri: "artifact:my%20report%3F.pdf?version=2",
      mime_type: "application/pdf",
      display_name: "my report?.pdf",
    });
    expect(attachmentsOf(user([{ text: "hi" }, attachmentPart(file)]))).toEqual([file]);
    // An agent's event attaches nothing, and a part without a well-formed reference is no attachment.
    expect(attachmentsOf({ ...user([attachmentPart(file)]), author: "demo" })).toEqual([]);
    expect(attachmentsOf(user([{ retrace_attachment: { filename: 3 } }]))).toEqual([]);
  });

  it("get names of their own within a message", () => {
    expect(uniqueNames(["image.png", "image.png", "notes", "notes", "image (2).png"])).toEqual([
      "image.png",
      "image (2).png",
      "notes",
      "notes (2)",
      "image (2) (2).png",
    ]);
  });

  it("are stored with the type their name says when a browser gave none, a generic one, or a wrong one for source code", () => {
    expect(attachmentType("main.ts", "video/mp2t")).toBe("text/plain");
    expect(attachmentType("report.pdf", "")).toBe("application/pdf");
    expect(attachmentType("data.json", "application/octet-stream")).toBe("application/json");
    expect(attachmentType("photo.jpg", "image/jpeg")).toBe("image/jpeg");
    expect(attachmentType("notes.txt", "text/plain; charset=utf-8")).toBe("text/plain; charset=utf-8");
    expect(attachmentType("blob", null)).toBe("application/octet-stream");
  });

  it("reach a model as an image, a PDF, text, or only a note", () => {
    expect(
      ["image/png", "image/webp", "application/pdf", "text/csv", "application/json", "image/svg+xml", "image/heic", "application/zip"].map(
        attachmentKind,
      ),
    ).toEqual(["image", "image", "pdf", "text", "text", "text", "other", "other"]);
    expect([0, 999, 1000, 48_213, 3_100_000, 250_000_000].map(readableSize)).toEqual([
      "0 B",
      "999 B",
      "1.0 KB",
      "48 KB",
      "3.1 MB",
      "250 MB",
    ]);
  });

  it("follow their message's text in the model's user message; text-only messages stay plain strings", () => {
    const image = { type: "image" as const, image: new Uint8Array([1]), mediaType: "image/png" };
    const messages = toModelMessages(
      [user([{ text: "look" }, attachmentPart(file)]), user([attachmentPart({ ...file, version: 3 })]), user([{ text: "plain" }])],
      new Map([[attachmentKey(file), image]]),
    );
    expect(messages).toEqual([
      { role: "user", content: [{ type: "text", text: "look" }, image] },
      { role: "user", content: [{ type: "text", text: "[Attached file dot.png]" }] },
      { role: "user", content: "plain" },
    ]);
  });

  it("PDFs go to a model agent as file parts unless its config says text", () => {
    expect(parseConfig({ OPENAI_BASE_URL: "http://x/v1" } as unknown as NodeJS.ProcessEnv).modelAgents[0].pdfInput).toBe("file");
    expect(
      parseConfig({ OPENAI_BASE_URL: "http://x/v1", OPENAI_PDF_INPUT: "text" } as unknown as NodeJS.ProcessEnv).modelAgents[0].pdfInput,
    ).toBe("text");
    expect(() => parseConfig({ OPENAI_BASE_URL: "http://x/v1", OPENAI_PDF_INPUT: "pdf" } as unknown as NodeJS.ProcessEnv)).toThrow(
      "OPENAI_PDF_INPUT",
    );
  });
});
