"use client";

import { useEffect, useRef, useState } from "react";
import type { SentFile } from "@/lib/a2a/client";
import type { UploadInfo } from "@/lib/db/types";
import { readableSize } from "@/lib/session/attachments";
import { notifyError } from "../../ui/notify";

/** What the server allows (RETRACE_MAX_UPLOAD_BYTES, RETRACE_MAX_ATTACHMENTS), checked here before a byte is sent. */
export interface AttachmentLimits {
  maxBytes: number;
  maxFiles: number;
}

/** A file in the composer: uploading (with its progress), uploaded, or failed (the toast said why). */
export interface PendingFile {
  key: string;
  name: string;
  size: number;
  type: string;
  /** 0–1 of its bytes sent. */
  progress: number;
  /** An image's local preview (an object URL), shown on its chip. */
  preview?: string;
  upload?: UploadInfo;
}

/** The upload's own name for a file the clipboard named generically (every pasted screenshot is `image.png`). */
const nameOf = (file: File) => file.name || `pasted.${file.type.split("/")[1] ?? "bin"}`;

/**
 * Streams `file` to `POST /api/uploads` (XMLHttpRequest: fetch reports no upload progress); resolves with the
 * upload, rejects with the server's message.
 */
function sendFile(file: File, onProgress: (fraction: number) => void, signal: AbortSignal): Promise<UploadInfo> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `/api/uploads?filename=${encodeURIComponent(nameOf(file))}`);
    xhr.setRequestHeader("content-type", file.type || "application/octet-stream");
    xhr.responseType = "json";
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => {
      const body = xhr.response as { data?: UploadInfo; error?: string } | null;
      if (xhr.status === 201 && body?.data) resolve(body.data);
      else reject(new Error(body?.error ?? `The upload failed (HTTP ${xhr.status})`));
    };
    xhr.onerror = () => reject(new Error("Failed to fetch"));
    xhr.onabort = () => reject(new DOMException("The upload was cancelled", "AbortError"));
    signal.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.send(file);
  });
}

/** A sent message's A2A file part for an upload (lib/a2a/files.ts). */
const sentFileOf = (upload: UploadInfo): SentFile => ({
  url: `/api/uploads/${upload.id}`,
  filename: upload.filename,
  mediaType: upload.mime_type,
});

/**
 * The composer's attachments: files picked, dropped or pasted are checked against the limits (a toast says why
 * one is refused), uploaded at once with their progress, and removed again (the upload too) with their ×.
 */
export function useAttachments(limits: AttachmentLimits) {
  const [files, setFiles] = useState<PendingFile[]>([]);
  const uploads = useRef(new Map<string, AbortController>());
  const count = useRef(0);
  // What the last send took, by its URL, to put back if that send is refused.
  const taken = useRef(new Map<string, PendingFile>());

  // Previews are object URLs: freed when their chip goes, and all of them when the composer does.
  const shown = useRef(files);
  shown.current = files;
  useEffect(
    () => () => {
      for (const file of shown.current) if (file.preview) URL.revokeObjectURL(file.preview);
      for (const controller of uploads.current.values()) controller.abort();
    },
    [],
  );

  const update = (key: string, change: Partial<PendingFile>) =>
    setFiles((all) => all.map((f) => (f.key === key ? { ...f, ...change } : f)));
  const drop = (key: string) =>
    setFiles((all) => {
      const gone = all.find((f) => f.key === key);
      if (gone?.preview) URL.revokeObjectURL(gone.preview);
      return all.filter((f) => f.key !== key);
    });

  function add(picked: File[]) {
    const room = limits.maxFiles - shown.current.length;
    if (picked.length > room) notifyError(`A message can carry at most ${limits.maxFiles} files`);
    for (const file of picked.slice(0, Math.max(room, 0))) {
      if (file.size > limits.maxBytes) {
        notifyError(`${nameOf(file)} is too large: a file may be at most ${readableSize(limits.maxBytes)}`);
        continue;
      }
      const key = `file-${++count.current}`;
      const preview = file.type.startsWith("image/") ? URL.createObjectURL(file) : undefined;
      setFiles((all) => [...all, { key, name: nameOf(file), size: file.size, type: file.type, progress: 0, preview }]);
      const controller = new AbortController();
      uploads.current.set(key, controller);
      sendFile(file, (progress) => update(key, { progress }), controller.signal)
        .then((upload) => update(key, { upload, progress: 1 }))
        .catch((error) => {
          if (controller.signal.aborted) return;
          notifyError(`${nameOf(file)} was not attached: ${error instanceof Error ? error.message : String(error)}`);
          drop(key);
        })
        .finally(() => uploads.current.delete(key));
    }
  }

  /** Its ×: a file still uploading stops; an uploaded one is removed from the server (it was never sent). */
  function remove(key: string) {
    const file = shown.current.find((f) => f.key === key);
    uploads.current.get(key)?.abort();
    drop(key);
    if (file?.upload) void fetch(`/api/uploads/${file.upload.id}`, { method: "DELETE" }).catch(() => undefined);
  }

  /** The uploaded files, for a send; they leave the composer (their uploads stay: the message attaches them). */
  function take(): SentFile[] {
    const sent = shown.current.flatMap((f) => (f.upload ? [sentFileOf(f.upload)] : []));
    taken.current = new Map(shown.current.flatMap((f) => (f.upload ? [[sentFileOf(f.upload).url, { ...f, preview: undefined }]] : [])));
    for (const file of shown.current) if (file.preview) URL.revokeObjectURL(file.preview);
    setFiles([]);
    return sent;
  }

  /** Puts back what a refused send took (its uploads are still there), before what was added since. */
  function restore(sent: SentFile[]) {
    const back = sent.flatMap((file) => taken.current.get(file.url) ?? []);
    setFiles((all) => [...back.filter((f) => !all.some((a) => a.key === f.key)), ...all]);
  }

  return { files, add, remove, take, restore, uploading: files.some((f) => !f.upload) };
}
