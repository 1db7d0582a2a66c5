"use client";

import { useQueryClient } from "@tanstack/react-query";
import { Download, Upload } from "lucide-react";
import { useRef, useState } from "react";
import { queryKeys } from "@/lib/query-keys";
import { Modal } from "../../account/modal";
import { notifyError, notifySuccess } from "../../ui/notify";
import { download } from "./export-menu";

interface Result {
  chats: { id: string; name: string }[];
}

/**
 * Uploads one file to the import route, reporting bytes sent (the server reads as it receives) and then the
 * server's own progress lines; resolves with the chats imported.
 */
function upload(file: File, onProgress: (bytes: number, chats: number) => void): Promise<Result> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    let read = 0;
    let chats = 0;
    let last: { data?: Result; error?: string } | null = null;
    const lines = () => {
      const complete = xhr.responseText.lastIndexOf("\n") + 1;
      for (const line of xhr.responseText.slice(read, complete).split("\n").filter(Boolean)) {
        const parsed = JSON.parse(line) as { progress?: { bytes: number; chats: number }; data?: Result; error?: string };
        if (parsed.progress) {
          chats = parsed.progress.chats;
          onProgress(parsed.progress.bytes, chats);
        } else last = parsed;
      }
      read = complete;
    };
    xhr.open("POST", "/api/imports");
    const zip = /\.zip$/i.test(file.name) || file.type.includes("zip");
    xhr.setRequestHeader("content-type", zip ? "application/zip" : "application/json");
    xhr.setRequestHeader("accept", "application/x-ndjson");
    xhr.upload.onprogress = (event) => onProgress(event.loaded, chats);
    xhr.onprogress = () => {
      if (xhr.status === 200) lines();
    };
    xhr.onload = () => {
      if (xhr.status === 200) lines();
      else {
        try {
          last = JSON.parse(xhr.responseText);
        } catch {
          last = { error: `The import failed (HTTP ${xhr.status})` };
        }
      }
      const answer = last as { data?: Result; error?: string } | null;
      if (answer?.data) resolve(answer.data);
      else reject(new Error(answer?.error ?? "The import ended without an answer"));
    };
    xhr.onerror = () => reject(new Error("The upload was interrupted; check the connection and try again"));
    xhr.send(file);
  });
}

const megabytes = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MB`;

/** "Import chats" (a Retrace archive, ChatGPT's conversations.json or its ZIP; several files at once) and "Export all chats". */
export function ImportChats() {
  const queryClient = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [progress, setProgress] = useState<{ done: number; total: number; chats: number } | null>(null);
  // Closing the dialog hides it; the import goes on, its progress on the button.
  const [hidden, setHidden] = useState(false);

  const start = async (files: File[]) => {
    const total = files.reduce((n, f) => n + f.size, 0) || 1;
    let before = 0;
    let imported = 0;
    setProgress({ done: 0, total, chats: 0 });
    setHidden(false);
    try {
      for (const file of files) {
        const result = await upload(file, (bytes, chats) =>
          setProgress({ done: before + Math.min(bytes, file.size), total, chats: imported + chats }),
        );
        imported += result.chats.length;
        before += file.size;
        setProgress({ done: before, total, chats: imported });
        void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
      }
      notifySuccess(imported === 1 ? "Imported 1 chat" : `Imported ${imported} chats`);
    } catch (error) {
      notifyError(error);
    } finally {
      void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
      setProgress(null);
    }
  };

  const percent = progress ? Math.round((progress.done / progress.total) * 100) : 0;
  const itemClass =
    "flex items-center gap-2 rounded-md px-2 py-1.5 text-sm text-zinc-700 hover:bg-zinc-100 touch:min-h-11 dark:text-zinc-300 dark:hover:bg-zinc-800";
  return (
    <div className="flex flex-col">
      <button type="button" className={itemClass} disabled={progress !== null} onClick={() => input.current?.click()}>
        <Upload className="size-4" aria-hidden /> {progress ? `Importing… ${percent}%` : "Import chats"}
      </button>
      <button type="button" className={itemClass} onClick={() => download("/api/export")}>
        <Download className="size-4" aria-hidden /> Export all chats
      </button>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        aria-label="Files to import"
        accept=".json,.zip,application/json,application/zip"
        onChange={(e) => {
          const files = [...(e.currentTarget.files ?? [])];
          e.currentTarget.value = "";
          if (files.length) void start(files);
        }}
      />
      <Modal
        open={progress !== null && !hidden}
        onOpenChange={(open) => setHidden(!open)}
        title="Importing chats"
        description="A Retrace archive keeps every version; from ChatGPT, every branch becomes a version."
      >
        <div className="mt-4">
          <div
            role="progressbar"
            aria-label="Import progress"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={percent}
            className="h-2 w-full overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800"
          >
            <div className="h-full rounded-full bg-zinc-900 transition-[width] dark:bg-zinc-100" style={{ width: `${percent}%` }} />
          </div>
          <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400" aria-live="polite">
            {progress &&
              `${megabytes(progress.done)} of ${megabytes(progress.total)} · ${progress.chats === 1 ? "1 chat" : `${progress.chats} chats`} imported`}
          </p>
        </div>
      </Modal>
    </div>
  );
}
