"use client";

import { Check, ChevronDown } from "lucide-react";
import { DropdownMenu } from "radix-ui";
import type { ModelInfo } from "@/lib/agent/types";
import { cn } from "../../ui/cn";
import { menuContentClass, menuItemClass } from "../../ui/menu";
import { priceLine } from "../turn/usage-format";

/**
 * The composer's Model menu: which of the agent's models the next message runs on. It opens on the model the
 * chat used last (docs/semantics.md, "Models, tokens and cost"); shown only when the agent has more than one.
 */
export function ModelMenu({
  models,
  model,
  onChange,
  disabled,
}: {
  models: ModelInfo[];
  model: string;
  onChange: (model: string) => void;
  disabled?: boolean;
}) {
  return (
    <DropdownMenu.Root modal={false}>
      <DropdownMenu.Trigger asChild>
        <button
          type="button"
          disabled={disabled}
          aria-label={`Model: ${model}`}
          className={cn(
            "inline-flex h-9 max-w-28 shrink-0 sm:max-w-40 items-center gap-1 rounded-full px-2.5 text-xs text-zinc-600 touch:h-11",
            "hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-blue-500 disabled:opacity-40",
            "data-[state=open]:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800 dark:data-[state=open]:bg-zinc-800",
          )}
        >
          <span className="truncate">{model}</span>
          <ChevronDown className="size-3.5 shrink-0" aria-hidden />
        </button>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content side="top" align="end" sideOffset={6} collisionPadding={8} className={menuContentClass}>
          <DropdownMenu.Label className="px-2 py-1 text-xs text-zinc-500 dark:text-zinc-400">Model</DropdownMenu.Label>
          <DropdownMenu.RadioGroup value={model} onValueChange={onChange}>
            {models.map((m) => (
              <DropdownMenu.RadioItem key={m.name} value={m.name} className={cn(menuItemClass, m.price && "items-start py-2")}>
                <span className="flex size-4 shrink-0 items-center">
                  <DropdownMenu.ItemIndicator>
                    <Check className="size-4" aria-hidden />
                  </DropdownMenu.ItemIndicator>
                </span>
                <span className="flex min-w-0 flex-col">
                  <span className="truncate">{m.name}</span>
                  {m.price && <span className="text-xs text-zinc-500 dark:text-zinc-400">{priceLine(m.price)}</span>}
                </span>
              </DropdownMenu.RadioItem>
            ))}
          </DropdownMenu.RadioGroup>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
