"use client";

import { useRef } from "react";
import type { ExtraProps } from "react-markdown";
import { CopyButton } from "../../ui/copy-button";

/** The `language-xyz` class Markdown gives a fenced block's code element. */
function languageOf(node: ExtraProps["node"]): string | null {
  const code = node?.children[0];
  const classes = code?.type === "element" ? code.properties.className : undefined;
  const found = Array.isArray(classes) ? classes.map(String).find((c) => c.startsWith("language-")) : undefined;
  return found ? found.slice("language-".length) : null;
}

/** A fenced code block: its language above it and a "Copy code" button that copies exactly what is shown. */
export function CodeBlock({ node, children }: React.ComponentProps<"pre"> & ExtraProps) {
  const pre = useRef<HTMLPreElement>(null);
  return (
    <div data-testid="code-block" className="my-3 overflow-hidden rounded-lg border border-zinc-200 dark:border-zinc-800">
      <div className="flex items-center justify-between bg-zinc-100 px-3 py-1 text-xs text-zinc-600 dark:bg-zinc-900 dark:text-zinc-400">
        <span className="font-mono">{languageOf(node) ?? "text"}</span>
        <CopyButton
          showLabel
          label="Copy code"
          text={() => pre.current?.textContent ?? ""}
          className="-mr-2 rounded-md px-2 py-1 hover:bg-zinc-200 hover:text-zinc-900 focus-visible:outline-2 focus-visible:outline-blue-500 touch:min-h-11 dark:hover:bg-zinc-800 dark:hover:text-zinc-100"
        />
      </div>
      <pre ref={pre}>{children}</pre>
    </div>
  );
}
