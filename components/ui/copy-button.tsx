"use client";

import { Check, Copy } from "lucide-react";
import { useEffect, useState } from "react";
import { cn } from "./cn";
import { notifyError } from "./notify";

async function copyText(text: string) {
  if (!navigator.clipboard) throw new Error("Copying needs a secure connection (https or localhost)");
  await navigator.clipboard.writeText(text);
}

/**
 * Copies `text()` (read when clicked, so it is what the screen shows then); says "Copied" for a moment.
 * With `showLabel` the label is visible text, else the icon alone carries it as the accessible name.
 */
export function CopyButton({
  text,
  label = "Copy",
  showLabel,
  className,
}: {
  text: () => string;
  label?: string;
  showLabel?: boolean;
  className?: string;
}) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(timer);
  }, [copied]);
  const name = copied ? "Copied" : label;
  const Icon = copied ? Check : Copy;
  return (
    <button
      type="button"
      aria-label={showLabel ? undefined : name}
      className={cn("inline-flex items-center justify-center gap-1", className)}
      onClick={() =>
        copyText(text()).then(
          () => setCopied(true),
          (error) => notifyError(error),
        )
      }
    >
      <Icon className="size-3.5" aria-hidden />
      {showLabel && name}
    </button>
  );
}
