"use client";

import { Paperclip } from "lucide-react";
import { useRef, useState } from "react";
import { cn } from "../../ui/cn";

const carriesFiles = (e: React.DragEvent) => e.dataTransfer.types.includes("Files");

/** The chat's column: files dragged over it show where they go, and dropped there are attached to the message being written. */
export function DropZone({
  onFiles,
  className,
  children,
}: {
  onFiles: (files: File[]) => void;
  className?: string;
  children: React.ReactNode;
}) {
  const [over, setOver] = useState(false);
  // dragenter and dragleave fire for every child crossed: the zone is left when as many leaves as entries came.
  const depth = useRef(0);
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a drop is the pointer's shortcut for "Attach files", which keyboards and screen readers use
    <div
      data-testid="drop-zone"
      className={cn("relative", className)}
      onDragEnter={(e) => {
        if (!carriesFiles(e)) return;
        depth.current += 1;
        setOver(true);
      }}
      onDragLeave={(e) => {
        if (!carriesFiles(e)) return;
        depth.current -= 1;
        if (depth.current <= 0) setOver(false);
      }}
      onDragOver={(e) => {
        if (!carriesFiles(e)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = "copy";
      }}
      onDrop={(e) => {
        if (!carriesFiles(e)) return;
        e.preventDefault();
        depth.current = 0;
        setOver(false);
        onFiles([...e.dataTransfer.files]);
      }}
    >
      {children}
      {over && (
        <div
          aria-hidden
          className="pointer-events-none absolute inset-2 z-30 flex items-center justify-center gap-2 rounded-2xl border-2 border-dashed border-zinc-400 bg-white/85 text-sm font-medium dark:border-zinc-500 dark:bg-zinc-950/85"
        >
          <Paperclip className="size-4" />
          Drop files to attach them
        </div>
      )}
    </div>
  );
}
