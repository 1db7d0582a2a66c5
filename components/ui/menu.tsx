"use client";

import { DropdownMenu } from "radix-ui";
import { cn } from "./cn";

/** A Radix dropdown with our look: `trigger` is the button, `children` the items. */
export function Menu({
  trigger,
  children,
  align = "end",
}: {
  trigger: React.ReactNode;
  children: React.ReactNode;
  align?: "start" | "end";
}) {
  return (
    <DropdownMenu.Root modal={false}>
      <DropdownMenu.Trigger asChild>{trigger}</DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          align={align}
          sideOffset={4}
          className="z-50 min-w-44 rounded-lg border border-zinc-200 bg-white p-1 text-sm shadow-lg dark:border-zinc-800 dark:bg-zinc-900"
        >
          {children}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

export function MenuItem({
  onSelect,
  danger,
  disabled,
  icon,
  children,
}: {
  onSelect: () => void;
  danger?: boolean;
  disabled?: boolean;
  icon?: React.ReactNode;
  children: React.ReactNode;
}) {
  return (
    <DropdownMenu.Item
      disabled={disabled}
      onSelect={onSelect}
      className={cn(
        "flex cursor-default items-center gap-2 rounded-md px-2 py-1.5 outline-none select-none",
        "data-[highlighted]:bg-zinc-100 data-[disabled]:opacity-40 dark:data-[highlighted]:bg-zinc-800",
        danger && "text-red-600 dark:text-red-400",
      )}
    >
      {icon}
      {children}
    </DropdownMenu.Item>
  );
}
