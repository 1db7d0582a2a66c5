"use client";

import { ChevronRight } from "lucide-react";
import { DropdownMenu } from "radix-ui";
import { useId } from "react";
import { cn } from "./cn";

/** Above toasts (sonner's z-index is 999,999,999): a menu is opened on purpose, and goes soon. */
export const menuContentClass =
  "z-[1000000000] min-w-44 max-w-[min(20rem,calc(100vw-1rem))] rounded-lg border border-zinc-200 bg-white p-1 text-sm shadow-lg dark:border-zinc-800 dark:bg-zinc-900";

/** Targets of at least 44 px on touch screens; compact for a mouse. */
export const menuItemClass = cn(
  "flex cursor-default items-center gap-2 rounded-md px-2 py-1.5 outline-none select-none touch:min-h-11",
  "data-[highlighted]:bg-zinc-100 data-[disabled]:opacity-40 dark:data-[highlighted]:bg-zinc-800",
);

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
        <DropdownMenu.Content align={align} sideOffset={4} collisionPadding={8} className={menuContentClass}>
          {children}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

/** A menu item named by its label alone; `description` says in one line what it does (read as its description). */
export function MenuItem({
  onSelect,
  danger,
  disabled,
  icon,
  description,
  className,
  children,
}: {
  onSelect: () => void;
  danger?: boolean;
  disabled?: boolean;
  icon?: React.ReactNode;
  description?: string;
  className?: string;
  children: React.ReactNode;
}) {
  const id = useId();
  return (
    <DropdownMenu.Item
      disabled={disabled}
      onSelect={onSelect}
      aria-labelledby={`${id}-label`}
      aria-describedby={description ? `${id}-description` : undefined}
      className={cn(menuItemClass, description && "items-start py-2", danger && "text-red-600 dark:text-red-400", className)}
    >
      {icon && <span className={cn("shrink-0", description && "mt-0.5")}>{icon}</span>}
      <span className="flex min-w-0 flex-col">
        <span id={`${id}-label`}>{children}</span>
        {description && (
          <span id={`${id}-description`} className="text-xs text-zinc-500 dark:text-zinc-400">
            {description}
          </span>
        )}
      </span>
    </DropdownMenu.Item>
  );
}

/** An item that opens a menu of its own beside it: `label` names it, `children` are its items. */
export function SubMenu({
  label,
  icon,
  disabled,
  children,
}: {
  label: string;
  icon?: React.ReactNode;
  disabled?: boolean;
  children: React.ReactNode;
}) {
  return (
    <DropdownMenu.Sub>
      <DropdownMenu.SubTrigger
        disabled={disabled}
        className={cn(menuItemClass, "data-[state=open]:bg-zinc-100 dark:data-[state=open]:bg-zinc-800")}
      >
        {icon && <span className="shrink-0">{icon}</span>}
        <span>{label}</span>
        <ChevronRight className="ml-auto size-4 text-zinc-500" aria-hidden />
      </DropdownMenu.SubTrigger>
      <DropdownMenu.Portal>
        <DropdownMenu.SubContent sideOffset={4} collisionPadding={8} className={menuContentClass}>
          {children}
        </DropdownMenu.SubContent>
      </DropdownMenu.Portal>
    </DropdownMenu.Sub>
  );
}
