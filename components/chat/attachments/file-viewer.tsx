"use client";

import { Download, ExternalLink, X } from "lucide-react";
import { Dialog } from "radix-ui";
import { useEffect, useState } from "react";
import { attachmentKind, readableSize } from "@/lib/session/attachments";
import { Button } from "../../ui/button";
import { cn } from "../../ui/cn";

/** A file a message shows: where its bytes are (served sandboxed, lib/api/files.ts), its name, type and size. */
export interface FileLink {
  url: string;
  name: string;
  mimeType: string;
  size?: number;
}

/** The most of a text file the viewer shows: a log of many megabytes stays a download. */
const TEXT_PREVIEW_BYTES = 200_000;

/** The start of a text file, read as it streams and cut at TEXT_PREVIEW_BYTES. */
function useTextPreview(url: string | null) {
  const [text, setText] = useState<{ url: string; body: string; cut: boolean } | { url: string; error: string } | null>(null);
  useEffect(() => {
    if (!url) return;
    const controller = new AbortController();
    (async () => {
      const response = await fetch(url, { signal: controller.signal });
      if (!response.ok || !response.body) throw new Error(`The file could not be read (HTTP ${response.status})`);
      const reader = response.body.getReader();
      const chunks: Uint8Array[] = [];
      let size = 0;
      while (size < TEXT_PREVIEW_BYTES) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        size += value.byteLength;
      }
      const cut = size >= TEXT_PREVIEW_BYTES;
      if (cut) await reader.cancel();
      const bytes = new Uint8Array(size);
      let at = 0;
      for (const chunk of chunks) {
        bytes.set(chunk, at);
        at += chunk.byteLength;
      }
      setText({ url, body: new TextDecoder().decode(bytes.subarray(0, TEXT_PREVIEW_BYTES)), cut });
    })().catch((error) => {
      if (!controller.signal.aborted) setText({ url, error: error instanceof Error ? error.message : String(error) });
    });
    return () => controller.abort();
  }, [url]);
  return text?.url === url ? text : null;
}

function Preview({ file }: { file: FileLink }) {
  const kind = attachmentKind(file.mimeType);
  const text = useTextPreview(kind === "text" ? file.url : null);
  if (kind === "image") {
    // biome-ignore lint/performance/noImgElement: a user's file at its own URL, not an asset Next.js could optimise
    return <img src={file.url} alt={file.name} className="mx-auto max-h-[70dvh] max-w-full rounded-md object-contain" />;
  }
  if (kind === "text") {
    if (!text) return <p className="text-sm text-zinc-500">Loading…</p>;
    if ("error" in text) return <p className="text-sm text-red-600">{text.error}</p>;
    return (
      <>
        <pre
          data-testid="file-text"
          className="max-h-[60dvh] overflow-auto rounded-md bg-zinc-50 p-3 font-mono text-xs whitespace-pre-wrap break-words dark:bg-zinc-950"
        >
          {text.body}
        </pre>
        {text.cut && <p className="text-xs text-zinc-500">Only the start of the file is shown: download it to read the rest.</p>}
      </>
    );
  }
  return (
    <p className="text-sm text-zinc-600 dark:text-zinc-400">
      {kind === "pdf" ? "Open the PDF in your browser's viewer, or download it." : "This file has no preview: download it to open it."}
    </p>
  );
}

/** A file's viewer: an image shown whole, a text file's text, a PDF (or anything else) to open in a new tab or download. */
export function FileViewer({ file, onClose }: { file: FileLink | null; onClose: () => void }) {
  return (
    <Dialog.Root open={file !== null} onOpenChange={(open) => !open && onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-black/60" />
        <Dialog.Content
          className={cn(
            "fixed z-50 flex max-h-[95dvh] flex-col gap-3 overflow-y-auto bg-white p-4 shadow-xl dark:bg-zinc-900",
            "inset-x-0 bottom-0 rounded-t-2xl sm:inset-x-auto sm:bottom-auto sm:top-1/2 sm:left-1/2 sm:w-[min(92vw,900px)] sm:-translate-x-1/2 sm:-translate-y-1/2 sm:rounded-xl",
          )}
        >
          {file && (
            <>
              <div className="flex items-start justify-between gap-3">
                <div className="min-w-0">
                  <Dialog.Title className="truncate text-base font-semibold">{file.name}</Dialog.Title>
                  <Dialog.Description className="text-sm text-zinc-500">
                    {file.mimeType}
                    {file.size !== undefined && ` · ${readableSize(file.size)}`}
                  </Dialog.Description>
                </div>
                <Dialog.Close asChild>
                  <Button aria-label="Close" className="-mt-1 -mr-2 p-2 touch:size-11">
                    <X className="size-4" aria-hidden />
                  </Button>
                </Dialog.Close>
              </div>
              <Preview file={file} />
              <div className="flex flex-wrap justify-end gap-2">
                <a
                  href={file.url}
                  target="_blank"
                  rel="noopener noreferrer"
                  className="inline-flex items-center gap-1.5 rounded-md border border-zinc-300 px-3 py-1.5 text-sm font-medium hover:bg-zinc-100 touch:min-h-11 dark:border-zinc-700 dark:hover:bg-zinc-800"
                >
                  <ExternalLink className="size-4" aria-hidden />
                  Open in a new tab
                </a>
                <a
                  href={file.url}
                  download={file.name}
                  className="inline-flex items-center gap-1.5 rounded-md border border-zinc-300 px-3 py-1.5 text-sm font-medium hover:bg-zinc-100 touch:min-h-11 dark:border-zinc-700 dark:hover:bg-zinc-800"
                >
                  <Download className="size-4" aria-hidden />
                  Download
                </a>
              </div>
            </>
          )}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
