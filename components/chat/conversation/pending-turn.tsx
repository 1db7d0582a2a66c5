"use client";

/** The turns not stored yet: the live one until the server names it, and a send that failed. */
import { AlertCircle, RotateCw } from "lucide-react";
import type { SentFile } from "@/lib/a2a/client";
import type { Task } from "@/lib/task/types";
import { Button } from "../../ui/button";
import { filesOf, MessageFiles } from "../attachments/attachment-chips";
import type { FailedSend, LiveTurn } from "./use-live-turn";

/** A sent message's files as the parts the server will give back for them, until it does. */
const fileParts = (files: SentFile[]) =>
  files.map((f) => ({ kind: "file" as const, file: { uri: f.url, name: f.filename, mimeType: f.mediaType } }));

/** The live turn as a task to render: the server's once it has named it, else just the user's message. */
export function liveTask(live: LiveTurn): Task {
  return (
    live.task ?? {
      kind: "task",
      id: "pending",
      contextId: "",
      status: { state: "submitted" },
      history: [
        {
          kind: "message",
          messageId: "pending",
          role: "user",
          parts: [...(live.userText ? [{ kind: "text" as const, text: live.userText }] : []), ...fileParts(live.userFiles)],
        },
      ],
    }
  );
}

export function FailedTurn({ failed, disabled, onRetry }: { failed: FailedSend; disabled: boolean; onRetry: () => void }) {
  return (
    <section data-testid="failed-turn" className="flex flex-col items-end gap-2">
      {failed.text && (
        <div className="max-w-[85%] rounded-2xl bg-zinc-100 px-4 py-2.5 text-[15px] leading-7 whitespace-pre-wrap break-words opacity-70 dark:bg-zinc-800">
          {failed.text}
        </div>
      )}
      <MessageFiles files={filesOf({ parts: fileParts(failed.files) })} />
      <div role="alert" className="flex items-center gap-2 text-sm text-red-600 dark:text-red-400">
        <AlertCircle className="size-4 shrink-0" aria-hidden />
        <span>{failed.error}</span>
        <Button variant="outline" className="px-2 py-1 touch:min-h-11" disabled={disabled} onClick={onRetry}>
          <RotateCw className="size-3.5" aria-hidden />
          Retry
        </Button>
      </div>
    </section>
  );
}
