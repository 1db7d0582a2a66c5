"use client";

import { File, FileImage, FileText, LoaderCircle, X } from "lucide-react";
import { useState } from "react";
import type { SentFile } from "@/lib/a2a/client";
import { attachmentKind, readableSize } from "@/lib/session/attachments";
import type { Message } from "@/lib/task/types";
import { Button } from "../../ui/button";
import { cn } from "../../ui/cn";
import { type FileLink, FileViewer } from "./file-viewer";
import type { PendingFile } from "./use-attachments";

/** The files a message attached: its A2A file parts (lib/task/convert.ts), with their size when the server gave it. */
export function filesOf(message: Pick<Message, "parts">): FileLink[] {
  return message.parts.flatMap((part) =>
    part.kind === "file" && "uri" in part.file
      ? [
          {
            url: part.file.uri,
            name: part.file.name ?? "file",
            mimeType: part.file.mimeType ?? "application/octet-stream",
            size: typeof part.metadata?.retrace_size === "number" ? part.metadata.retrace_size : undefined,
          },
        ]
      : [],
  );
}

/** A message's files as a new message sends them again (Edit & resend, Regenerate): by their URL. */
export const resentFiles = (files: FileLink[]): SentFile[] => files.map((f) => ({ url: f.url, filename: f.name, mediaType: f.mimeType }));

function KindIcon({ mimeType }: { mimeType: string }) {
  const kind = attachmentKind(mimeType);
  const Icon = kind === "image" ? FileImage : kind === "text" || kind === "pdf" ? FileText : File;
  return <Icon className="size-3.5 shrink-0" aria-hidden />;
}

const chip =
  "inline-flex max-w-full min-w-0 items-center gap-1.5 rounded-full border border-zinc-300 bg-white px-2.5 py-1 text-xs dark:border-zinc-700 dark:bg-zinc-900";

/** A sent message's files as chips; each opens the viewer. */
export function MessageFiles({ files, align = "end" }: { files: FileLink[]; align?: "start" | "end" }) {
  const [open, setOpen] = useState<FileLink | null>(null);
  if (files.length === 0) return null;
  return (
    <>
      <ul aria-label="Attached files" className={cn("flex max-w-[85%] flex-wrap gap-1.5", align === "end" && "justify-end")}>
        {files.map((file) => (
          <li key={file.url} className="min-w-0">
            <button
              type="button"
              data-testid="attachment-chip"
              aria-label={`Open ${file.name}`}
              onClick={() => setOpen(file)}
              className={cn(chip, "hover:bg-zinc-100 touch:min-h-11 dark:hover:bg-zinc-800")}
            >
              <KindIcon mimeType={file.mimeType} />
              <span className="truncate">{file.name}</span>
              {file.size !== undefined && <span className="shrink-0 text-zinc-500">{readableSize(file.size)}</span>}
            </button>
          </li>
        ))}
      </ul>
      <FileViewer file={open} onClose={() => setOpen(null)} />
    </>
  );
}

/**
 * The composer's files: a preview or icon, the name, the upload's progress, and × to remove. On a phone they
 * scroll in one row: wrapped, their 44 px targets would push the conversation out of sight.
 */
export function PendingFiles({ files, onRemove }: { files: PendingFile[]; onRemove: (key: string) => void }) {
  if (files.length === 0) return null;
  return (
    <ul aria-label="Files to send" className="flex w-full flex-wrap gap-1.5 px-1 pb-1 touch:flex-nowrap touch:overflow-x-auto">
      {files.map((file) => (
        <li key={file.key} data-testid="pending-attachment" className={cn(chip, "pr-1 touch:max-w-56 touch:shrink-0")}>
          {file.preview ? (
            // biome-ignore lint/performance/noImgElement: a local object URL, not an asset Next.js could optimise
            <img src={file.preview} alt="" className="size-5 shrink-0 rounded object-cover" />
          ) : (
            <KindIcon mimeType={file.type} />
          )}
          <span className="truncate">{file.name}</span>
          {file.upload ? (
            <span className="shrink-0 text-zinc-500">{readableSize(file.size)}</span>
          ) : (
            <span
              role="progressbar"
              aria-label={`Uploading ${file.name}`}
              aria-valuenow={Math.round(file.progress * 100)}
              className="flex shrink-0 items-center gap-1 text-zinc-500"
            >
              <LoaderCircle className="size-3 animate-spin" aria-hidden />
              {Math.round(file.progress * 100)}%
            </span>
          )}
          <Button aria-label={`Remove ${file.name}`} onClick={() => onRemove(file.key)} className="size-6 rounded-full p-0 touch:size-11">
            <X className="size-3.5" aria-hidden />
          </Button>
        </li>
      ))}
    </ul>
  );
}
