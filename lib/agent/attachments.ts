import "server-only";
import type { TextPart } from "ai";
import { extractText, getDocumentProxy } from "unpdf";
import { artifactBytes, loadArtifact } from "@/lib/db/queries";
import { AppError } from "@/lib/errors";
import { type Attachment, attachmentKey, attachmentKind, attachmentsOf, readableSize } from "@/lib/session/attachments";
import type { AdkEvent } from "@/lib/session/types";
import type { ModelFile } from "./model-messages";
import type { InvocationContext } from "./types";

/** The largest file a model is sent (providers refuse larger ones: OpenAI takes images to 20 MB, PDFs to 32 MB). */
const MODEL_FILE_BYTES = 20 * 1024 * 1024;
/** The most characters of a text file (or a PDF's text) a model is sent. */
const MODEL_TEXT_CHARS = 100_000;

const note = (file: Attachment, why: string): TextPart => ({
  type: "text",
  text: `[Attached file ${file.filename} (${file.mime_type}, ${readableSize(file.size)}): ${why}]`,
});

function asText(file: Attachment, text: string, what = "text"): TextPart {
  const cut = text.length > MODEL_TEXT_CHARS;
  const body = cut ? `${text.slice(0, MODEL_TEXT_CHARS)}\n[… ${text.length - MODEL_TEXT_CHARS} more characters not shown]` : text;
  return { type: "text", text: `Attached file ${file.filename} (${file.mime_type}), its ${what}:\n\n${body}` };
}

/** A PDF's pages and text (unpdf). */
async function pdfText(data: Uint8Array): Promise<{ pages: number; text: string }> {
  // Quiet: a damaged file is reported by the caller, not by pdf.js's warnings on the console.
  const { totalPages, text } = await extractText(await getDocumentProxy(new Uint8Array(data), { verbosity: 0 }), { mergePages: true });
  return { pages: totalPages, text };
}

/** Bytes that are text (UTF-8), or null. */
function decoded(data: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(data);
  } catch {
    return null;
  }
}

async function bytesOf(ctx: InvocationContext, file: Attachment): Promise<Buffer | null> {
  try {
    return await artifactBytes(ctx.userId, ctx.sessionId, file.filename, file.version, MODEL_FILE_BYTES);
  } catch (error) {
    if (error instanceof AppError && error.status === 404) return null;
    throw error;
  }
}

async function modelFile(ctx: InvocationContext, file: Attachment, pdf: "file" | "text"): Promise<ModelFile> {
  const kind = attachmentKind(file.mime_type);
  if (kind === "other") return note(file, "its content cannot be shown to you");
  if (file.size > MODEL_FILE_BYTES) return note(file, "too large to send to you");
  const data = await bytesOf(ctx, file);
  if (!data) return note(file, "it is no longer available");
  const mediaType = file.mime_type.split(";")[0].trim();
  if (kind === "image") return { type: "image", image: new Uint8Array(data), mediaType };
  if (kind === "pdf" && pdf === "file") return { type: "file", data: new Uint8Array(data), mediaType, filename: file.filename };
  if (kind === "pdf") {
    const extracted = await pdfText(data).catch(() => null);
    return extracted ? asText(file, extracted.text, `text (${extracted.pages} pages)`) : note(file, "its text could not be read");
  }
  const text = decoded(data);
  return text === null ? note(file, "it is not UTF-8 text") : asText(file, text);
}

/**
 * What the model is shown of every attachment in `events` (the effective history the turn runs on: a rewound
 * turn's files are never in it), each read once, keyed by `attachmentKey`.
 */
export async function modelFiles(
  ctx: InvocationContext,
  events: readonly AdkEvent[],
  pdf: "file" | "text",
): Promise<Map<string, ModelFile>> {
  const files = new Map<string, ModelFile>();
  for (const file of events.flatMap(attachmentsOf)) {
    if (!files.has(attachmentKey(file))) files.set(attachmentKey(file), await modelFile(ctx, file, pdf));
  }
  return files;
}

/** How the demo agent speaks of an attachment: `report.pdf (PDF, 2 pages, 48 KB)`. */
export async function describeAttachment(ctx: InvocationContext, file: Attachment): Promise<string> {
  const kind = attachmentKind(file.mime_type);
  const size = readableSize(file.size);
  const data = kind === "pdf" || kind === "text" ? await bytesOf(ctx, file) : null;
  if (kind === "pdf") {
    const pages = data && (await pdfText(data).catch(() => null))?.pages;
    return `**${file.filename}** (PDF, ${pages ? `${pages} ${pages === 1 ? "page" : "pages"}, ` : ""}${size})`;
  }
  if (kind === "text") {
    const text = data && decoded(data);
    const lines = text === null || text === undefined ? null : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    return `**${file.filename}** (text, ${lines === null ? "" : `${lines} ${lines === 1 ? "line" : "lines"}, `}${size})`;
  }
  if (kind === "image") return `**${file.filename}** (${file.mime_type.split("/")[1].toUpperCase()} image, ${size})`;
  return `**${file.filename}** (${file.mime_type}, ${size})`;
}

/**
 * The latest version of a chat's file as a tool reads it (`load_artifact`): its text, a PDF's text, or null for
 * bytes that are not text (an image) or too many to read.
 */
export async function readFile(ctx: InvocationContext, filename: string) {
  const file = await loadArtifact(ctx.userId, ctx.sessionId, filename);
  const found = { filename: file.filename, version: file.version, mime_type: file.mime_type, size: file.size };
  if (!file.blob) return { ...found, text: file.data.toString("utf8") };
  const kind = attachmentKind(file.mime_type);
  const data =
    kind === "pdf" || kind === "text" ? await artifactBytes(ctx.userId, ctx.sessionId, filename, file.version, MODEL_FILE_BYTES) : null;
  if (!data) return { ...found, text: null };
  return { ...found, text: kind === "pdf" ? ((await pdfText(data).catch(() => null))?.text ?? null) : decoded(data) };
}
