"use client";

import { Check, ChevronLeft, ChevronRight, Download, Ellipsis, History, Network, PanelRight, Share2 } from "lucide-react";
import { DropdownMenu } from "radix-ui";
import { useRef, useState } from "react";
import { Button } from "../ui/button";
import { focusOnMount } from "../ui/focus-on-mount";
import { MenuItem, menuContentClass, menuItemClass } from "../ui/menu";
import { ExportItems } from "./export/export-menu";

/** The sheets and dialogs the chat's header opens. */
export type HeaderPanel = "map" | "history" | "share" | "state";

/**
 * The chat's controls in one menu, for a header too narrow for their buttons (a phone): the rewound-turns
 * switch, Map, History, Share, Export (its two kinds in the menu's place) and the state sheet, each named as its
 * button is.
 */
export function ChatMenu({
  sessionId,
  showRewound,
  onShowRewoundChange,
  busy,
  onOpen,
}: {
  sessionId: string;
  showRewound: boolean;
  onShowRewoundChange: (show: boolean) => void;
  busy: boolean;
  /** Opens a sheet; focus returns to `opener` (this menu's button) when it closes. */
  onOpen: (panel: HeaderPanel, opener: HTMLElement | null) => void;
}) {
  const trigger = useRef<HTMLButtonElement>(null);
  // Export's two kinds, shown in the menu's place.
  const [exporting, setExporting] = useState(false);
  const open = (panel: HeaderPanel) => () => onOpen(panel, trigger.current);
  return (
    <DropdownMenu.Root modal={false} onOpenChange={(open) => !open && setExporting(false)}>
      <DropdownMenu.Trigger asChild ref={trigger}>
        <Button className="px-2.5 py-2 text-xs touch:min-h-11">
          <Ellipsis className="size-4" aria-hidden />
          More
        </Button>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content align="end" sideOffset={4} collisionPadding={8} className={menuContentClass}>
          {exporting ? (
            <>
              <DropdownMenu.Item
                ref={focusOnMount}
                className={menuItemClass}
                onSelect={(e) => {
                  e.preventDefault();
                  setExporting(false);
                }}
              >
                <ChevronLeft className="size-4 shrink-0" aria-hidden />
                Back
              </DropdownMenu.Item>
              <DropdownMenu.Separator className="my-1 h-px bg-zinc-200 dark:bg-zinc-800" />
              <ExportItems sessionId={sessionId} />
            </>
          ) : (
            <>
              <DropdownMenu.CheckboxItem checked={showRewound} onCheckedChange={onShowRewoundChange} className={menuItemClass}>
                <span className="inline-flex size-4 shrink-0 items-center justify-center rounded border border-zinc-400 dark:border-zinc-500">
                  <DropdownMenu.ItemIndicator>
                    <Check className="size-3" aria-hidden />
                  </DropdownMenu.ItemIndicator>
                </span>
                Show rewound turns
              </DropdownMenu.CheckboxItem>
              <DropdownMenu.Separator className="my-1 h-px bg-zinc-200 dark:bg-zinc-800" />
              <MenuItem icon={<Network className="size-4" />} onSelect={open("map")}>
                Map
              </MenuItem>
              <MenuItem icon={<History className="size-4" />} onSelect={open("history")}>
                History
              </MenuItem>
              <MenuItem icon={<Share2 className="size-4" />} disabled={busy} onSelect={open("share")}>
                Share
              </MenuItem>
              <DropdownMenu.Item
                aria-haspopup="menu"
                className={menuItemClass}
                onSelect={(e) => {
                  // In place of this menu's items, not beside it: a phone has no room for a submenu.
                  e.preventDefault();
                  setExporting(true);
                }}
              >
                <Download className="size-4 shrink-0" aria-hidden />
                Export
                <ChevronRight className="ml-auto size-4" aria-hidden />
              </DropdownMenu.Item>
              <MenuItem icon={<PanelRight className="size-4" />} className="lg:hidden" onSelect={open("state")}>
                State and files
              </MenuItem>
            </>
          )}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
