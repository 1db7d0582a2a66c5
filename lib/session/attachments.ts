/**
 * Attachments (docs/semantics.md, "Attachments"): files a person sends with a message. Each is a version of a
 * file of the chat, recorded by the user's event of its turn (`artifact_delta`), and named by one part of that
 * event: ADK's `file_data` (a chat-relative `artifact:` URI, its media type and name) beside
 * `retrace_attachment`, the version it is, its size and the hash of its bytes.
 */
import type { AdkEvent, Part } from "./types";

export interface Attachment {
  filename: string;
  version: number;
  mime_type: string;
  size: number;
  /** Hex SHA-256 of its bytes: the user's blob that holds them. */
  sha256: string;
}

/**
 * What a message attaches: an upload of the sender's, or an attachment the chat already has (a file version
 * whose bytes are a blob): Regenerate and Edit & resend send the rewound turn's files again that way.
 */
export type AttachmentSource = { upload: string } | { filename: string; version: number };

/** An attachment's key among a turn's files: its version of its file. */
export const attachmentKey = (file: Pick<Attachment, "filename" | "version">) => `${file.version}/${file.filename}`;

/** The URI an attachment's `file_data` gives: the chat's file `filename` at `version`, in whichever chat shows the event. */
const artifactUri = (filename: string, version: number) => `artifact:${encodeURIComponent(filename)}?version=${version}`;

export function attachmentPart(file: Attachment): Part {
  return {
    file_data: { file_uri: artifactUri(file.filename, file.version), mime_type: file.mime_type, display_name: file.filename },
    retrace_attachment: { filename: file.filename, version: file.version, size: file.size, sha256: file.sha256 },
  };
}

/** The attachment a part names, or null for any other part (one a client appended without a well-formed reference, say). */
export function attachmentOf(part: Part): Attachment | null {
  const ref = part.retrace_attachment as Partial<Attachment> | undefined;
  const data = part.file_data as { mime_type?: unknown } | undefined;
  if (!ref || typeof ref !== "object" || typeof ref.filename !== "string" || !Number.isInteger(ref.version)) return null;
  return {
    filename: ref.filename,
    version: ref.version as number,
    mime_type: typeof data?.mime_type === "string" ? data.mime_type : "application/octet-stream",
    size: typeof ref.size === "number" ? ref.size : 0,
    sha256: typeof ref.sha256 === "string" ? ref.sha256 : "",
  };
}

/** The files a user's event attaches, in order. */
export function attachmentsOf(event: Pick<AdkEvent, "author" | "content">): Attachment[] {
  if (event.author !== "user") return [];
  return (event.content?.parts ?? []).flatMap((part) => attachmentOf(part) ?? []);
}

/**
 * Names for the files of one message, each unique among them: a second `image.png` (two pasted screenshots)
 * becomes `image (2).png`.
 */
export function uniqueNames(names: readonly string[]): string[] {
  const taken = new Set<string>();
  return names.map((name) => {
    const dot = name.lastIndexOf(".");
    const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
    let candidate = name;
    for (let n = 2; taken.has(candidate); n++) candidate = `${stem} (${n})${ext}`;
    taken.add(candidate);
    return candidate;
  });
}

/** How a model is given a file: an image it sees, a PDF, text it reads, or something it is only told about. */
export type AttachmentKind = "image" | "pdf" | "text" | "other";

/** Images chat models accept everywhere. */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

const TEXT_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/typescript",
  "application/x-yaml",
  "application/yaml",
  "application/toml",
  "application/x-sh",
  "application/sql",
  "application/x-ndjson",
  "image/svg+xml",
]);

/** Extensions of text and source files, whatever type a browser gave them (`.ts` is often `video/mp2t`). */
const TEXT_EXTENSIONS = new Set(
  (
    "txt md markdown csv tsv json jsonl ndjson yaml yml toml ini cfg conf env log xml html htm css scss less svg " +
    "js mjs cjs jsx ts tsx mts cts py rb go rs java kt kts scala c h cc cpp hpp cs swift m php pl lua r sql sh bash zsh fish " +
    "ps1 bat dockerfile makefile gradle properties tex rst adoc proto graphql vue svelte dart ex exs erl hs clj el ml"
  ).split(" "),
);

const MEDIA_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
  md: "text/markdown",
  csv: "text/csv",
  json: "application/json",
  html: "text/html",
  svg: "image/svg+xml",
};

const extensionOf = (filename: string) => {
  const dot = filename.lastIndexOf(".");
  return (dot >= 0 ? filename.slice(dot + 1) : filename).toLowerCase();
};

const bareType = (mimeType: string) => mimeType.split(";")[0].trim().toLowerCase();

/**
 * The media type an attachment is stored with: the one given, unless it is missing or generic, or the name
 * says it is a text or source file; then the name's.
 */
export function attachmentType(filename: string, given: string | null | undefined): string {
  const type = given ? bareType(given) : "";
  const ext = extensionOf(filename);
  const generic = type === "" || type === "application/octet-stream";
  if (TEXT_EXTENSIONS.has(ext) && !type.startsWith("text/") && !TEXT_TYPES.has(type)) return MEDIA_TYPES[ext] ?? "text/plain";
  if (generic) return MEDIA_TYPES[ext] ?? "application/octet-stream";
  return given as string;
}

export function attachmentKind(mimeType: string): AttachmentKind {
  const type = bareType(mimeType);
  if (IMAGE_TYPES.has(type)) return "image";
  if (type === "application/pdf") return "pdf";
  if (type.startsWith("text/") || TEXT_TYPES.has(type)) return "text";
  return "other";
}

/** A size as people read it: 120 B, 48.2 KB, 3.1 MB. */
export function readableSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ["KB", "MB", "GB"];
  let value = bytes;
  let unit = "";
  for (const next of units) {
    value /= 1000;
    unit = next;
    if (value < 1000) break;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${unit}`;
}
