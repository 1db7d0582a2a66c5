"use client";

import { ArrowUp, Paperclip, Square } from "lucide-react";
import { forwardRef, useRef } from "react";
import { Button } from "../../ui/button";
import { useTouch } from "../../ui/use-touch";
import { PendingFiles } from "../attachments/attachment-chips";
import type { PendingFile } from "../attachments/use-attachments";

/** The composer's files (useAttachments): chips above the box, more from "Attach files" or a paste. */
export interface ComposerFiles {
  files: PendingFile[];
  add: (files: File[]) => void;
  remove: (key: string) => void;
  uploading: boolean;
}

/**
 * The message box: Enter sends, Shift+Enter is a new line; while a turn streams, Send becomes Stop (or Escape).
 * Files come from "Attach files", a paste, or a drop on the chat; a message may be files alone.
 */
export const Composer = forwardRef<
  HTMLTextAreaElement,
  {
    value: string;
    onChange: (v: string) => void;
    onSend: () => void;
    onStop: () => void;
    streaming: boolean;
    /** False while anything else runs (a stopped turn's cancel, a rewind): typing goes on, sending waits. */
    canSend: boolean;
    /** The chat's last turn waits for the user's decision on a tool call: typing goes on, sending waits for it. */
    waiting?: boolean;
    disabled?: boolean;
    attachments: ComposerFiles;
    /** Shown beside Send: the Model menu. */
    controls?: React.ReactNode;
  }
>(function Composer({ value, onChange, onSend, onStop, streaming, canSend, waiting, disabled, attachments, controls }, ref) {
  const hasContent = value.trim() !== "" || attachments.files.length > 0;
  const ready = !streaming && canSend && !disabled && hasContent && !attachments.uploading;
  // A phone's keyboard has no Shift+Enter to speak of.
  const touch = useTouch();
  const picker = useRef<HTMLInputElement>(null);
  return (
    <form
      className="mx-auto flex w-full max-w-3xl flex-col rounded-2xl border border-zinc-300 bg-white p-2 shadow-sm focus-within:border-zinc-500 dark:border-zinc-700 dark:bg-zinc-900"
      onSubmit={(e) => {
        e.preventDefault();
        if (ready) onSend();
      }}
    >
      <PendingFiles files={attachments.files} onRemove={attachments.remove} />
      <div className="flex items-end gap-2">
        <input
          ref={picker}
          type="file"
          multiple
          hidden
          data-testid="attach-input"
          onChange={(e) => {
            attachments.add([...(e.target.files ?? [])]);
            e.target.value = "";
          }}
        />
        <Button
          aria-label="Attach files"
          title="Attach files"
          disabled={disabled}
          onClick={() => picker.current?.click()}
          className="size-9 shrink-0 rounded-full p-0 touch:size-11"
        >
          <Paperclip className="size-4" aria-hidden />
        </Button>
        <textarea
          ref={ref}
          aria-label="Message"
          placeholder={
            waiting
              ? "Approve or deny the tool call above to go on (or rewind)"
              : touch
                ? "Message the agent…"
                : "Message the agent… (Enter to send, Shift+Enter for a new line)"
          }
          rows={1}
          value={value}
          disabled={disabled}
          onChange={(e) => onChange(e.target.value)}
          onPaste={(e) => {
            const files = [...e.clipboardData.files];
            if (files.length === 0) return;
            attachments.add(files);
            // A pasted screenshot is a file; text that came with the files still pastes.
            if (!e.clipboardData.getData("text/plain")) e.preventDefault();
          }}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              if (ready) onSend();
            }
          }}
          className="max-h-48 min-h-10 flex-1 resize-none bg-transparent px-2 py-2 text-[15px] outline-none field-sizing-content"
        />
        {controls}
        {streaming ? (
          <Button variant="outline" aria-label="Stop" onClick={onStop} className="size-9 rounded-full p-0 touch:size-11">
            <Square className="size-3.5 fill-current" aria-hidden />
          </Button>
        ) : (
          <Button variant="primary" type="submit" aria-label="Send" disabled={!ready} className="size-9 rounded-full p-0 touch:size-11">
            <ArrowUp className="size-4" aria-hidden />
          </Button>
        )}
      </div>
    </form>
  );
});
