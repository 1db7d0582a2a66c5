"use client";

import { ArrowUp, Square } from "lucide-react";
import { forwardRef } from "react";
import { Button } from "../ui/button";
import { useTouch } from "../ui/use-touch";

/** The message box: Enter sends, Shift+Enter is a new line; while a turn streams, Send becomes Stop (or Escape). */
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
  }
>(function Composer({ value, onChange, onSend, onStop, streaming, canSend, waiting, disabled }, ref) {
  const ready = !streaming && canSend && !disabled && value.trim() !== "";
  // A phone's keyboard has no Shift+Enter to speak of.
  const touch = useTouch();
  return (
    <form
      className="mx-auto flex w-full max-w-3xl items-end gap-2 rounded-2xl border border-zinc-300 bg-white p-2 shadow-sm focus-within:border-zinc-500 dark:border-zinc-700 dark:bg-zinc-900"
      onSubmit={(e) => {
        e.preventDefault();
        if (ready) onSend();
      }}
    >
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
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            if (ready) onSend();
          }
        }}
        className="max-h-48 min-h-10 flex-1 resize-none bg-transparent px-2 py-2 text-[15px] outline-none field-sizing-content"
      />
      {streaming ? (
        <Button variant="outline" aria-label="Stop" onClick={onStop} className="size-9 rounded-full p-0 touch:size-11">
          <Square className="size-3.5 fill-current" aria-hidden />
        </Button>
      ) : (
        <Button variant="primary" type="submit" aria-label="Send" disabled={!ready} className="size-9 rounded-full p-0 touch:size-11">
          <ArrowUp className="size-4" aria-hidden />
        </Button>
      )}
    </form>
  );
});
