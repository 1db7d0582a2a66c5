"use client";

import { ChevronRight, Columns2, MoreHorizontal, Pin } from "lucide-react";
import { Dialog } from "radix-ui";
import { useState } from "react";
import type { VersionInfo } from "@/lib/db/types";
import type { ChatTree } from "@/lib/session/tree";
import { Button } from "../../ui/button";
import { cn } from "../../ui/cn";
import { Menu, MenuItem } from "../../ui/menu";
import { SheetHeader } from "../../ui/sheet-header";
import { focusOpener, type OpenedSheet } from "../../ui/use-page-dialog";
import { useTreeQuery, useVersionsQuery } from "../queries";
import { plural, timeAgo } from "../turn/turn-rows";
import { factsLine, totalLine } from "../turn/usage-format";
import { clockTime, endedBy, foldSwitches } from "./history-entries";

/** The entry's menu: its last turn's versions side by side. */
function VersionMenu({ onCompare }: { onCompare: () => void }) {
  return (
    <Menu
      trigger={
        <Button aria-label="Version actions" className="shrink-0 p-1.5 touch:size-11">
          <MoreHorizontal className="size-4" aria-hidden />
        </Button>
      }
    >
      <MenuItem icon={<Columns2 className="size-4" />} description="See this turn's versions side by side" onSelect={onCompare}>
        Compare versions
      </MenuItem>
    </Menu>
  );
}

/** What the chat's turns used: the ones shown now, and the rewound branches apart. */
function ChatTotals({ tree }: { tree: ChatTree | undefined }) {
  if (!tree || tree.usage.current.turns + tree.usage.rewound.turns === 0) return null;
  return (
    <p className="px-4 pt-2 text-xs text-zinc-600 dark:text-zinc-300" data-testid="chat-usage">
      This chat: {totalLine(tree.usage.current)} · rewound branches: {totalLine(tree.usage.rewound)}
    </p>
  );
}

function Version({
  version,
  disabled,
  onRestore,
  facts,
  onCompare,
  nested,
  children,
}: {
  version: VersionInfo;
  disabled: boolean;
  onRestore: () => void;
  /** Its last turn's model and tokens. */
  facts: string;
  onCompare: () => void;
  /** Folded under another entry: set apart by its shade rather than a border. */
  nested?: boolean;
  children?: React.ReactNode;
}) {
  const current = version.marker_invocation_id === null;
  return (
    <li
      data-testid="version"
      className={cn("rounded-lg p-3", nested ? "bg-zinc-50 dark:bg-zinc-900" : "border border-zinc-200 dark:border-zinc-800")}
      aria-current={current ? "true" : undefined}
    >
      <div className="flex items-start gap-3">
        <div className="min-w-0 flex-1">
          {(version.label || version.pinned) && (
            <p className="flex min-w-0 items-center gap-1.5 text-sm font-semibold">
              {version.label && <span className="truncate">{version.label}</span>}
              {version.pinned && (
                <span className="inline-flex shrink-0 items-center gap-0.5 text-xs font-medium text-amber-700 dark:text-amber-400">
                  <Pin className="size-3" aria-hidden />
                  Pinned
                </span>
              )}
            </p>
          )}
          <p className="truncate text-sm" title={version.last_user_text ?? undefined}>
            {version.last_user_text ?? <span className="text-zinc-500 italic">No messages</span>}
          </p>
          <p className="mt-0.5 text-xs text-zinc-500">
            {plural(version.turns, "turn")}
            {version.version && ` · version ${version.version.index} of ${version.version.count}`}
          </p>
          {facts && <p className="text-xs text-zinc-500">{facts}</p>}
          <p className="text-xs text-zinc-500">
            {endedBy(version)}
            {" · "}
            <time dateTime={version.timestamp} title={timeAgo(version.timestamp)}>
              {clockTime(version.timestamp)}
            </time>
          </p>
        </div>
        {current ? (
          <span className="shrink-0 rounded-full bg-zinc-100 px-2 py-0.5 text-xs text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300">
            Current
          </span>
        ) : (
          <Button variant="outline" className="shrink-0 px-2 py-1 text-xs touch:min-h-11" disabled={disabled} onClick={onRestore}>
            Restore
          </Button>
        )}
        {version.version && version.version.count > 1 && <VersionMenu onCompare={onCompare} />}
      </div>
      {children}
    </li>
  );
}

/** The heads folded under an entry, behind a toggle that says how many. */
function Folded({ count, children }: { count: number; children: React.ReactNode }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="mt-2">
      <Button
        aria-expanded={open}
        className="-ml-2 px-2 py-1 text-xs text-zinc-600 touch:min-h-11 dark:text-zinc-400"
        onClick={() => setOpen(!open)}
      >
        <ChevronRight className={cn("size-3.5 transition-transform", open && "rotate-90")} aria-hidden />
        {plural(count, "earlier switch", "earlier switches")}
      </Button>
      {open && <ul className="mt-2 space-y-2">{children}</ul>}
    </div>
  );
}

/**
 * History: every view the chat had, newest first — its last message, turns and version, how and when it
 * ended, and the name and pin the user gave its last turn (in the map) — each restorable with its state and
 * files. Restoring is a rewind, so the usual Undo toast follows.
 */
export function HistoryPanel({
  sessionId,
  disabled,
  onRestore,
  onCompare,
  sheet,
}: {
  sessionId: string;
  disabled: boolean;
  onRestore: (markerInvocationId: string) => void;
  onCompare: (invocationId: string) => void;
  sheet: OpenedSheet;
}) {
  const { open, onOpenChange } = sheet;
  const versions = useVersionsQuery(sessionId, open);
  const tree = useTreeQuery(sessionId, open).data;
  const restore = (version: VersionInfo) => () => {
    onOpenChange(false);
    if (version.marker_invocation_id) onRestore(version.marker_invocation_id);
  };
  const compare = (version: VersionInfo) => () => {
    onOpenChange(false);
    if (version.last_invocation_id) onCompare(version.last_invocation_id);
  };
  const facts = (version: VersionInfo) => {
    const turn = tree?.turns.find((t) => t.invocation_id === version.last_invocation_id);
    return turn ? factsLine(turn) : "";
  };
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
        <Dialog.Content
          onCloseAutoFocus={focusOpener(sheet)}
          className="fixed inset-y-0 right-0 z-50 flex w-96 max-w-[90vw] flex-col bg-white shadow-xl dark:bg-zinc-950"
        >
          <SheetHeader title="History" />
          <Dialog.Description className="px-4 pt-3 text-xs text-zinc-500">
            Every version of this chat, newest first. Restore brings back its turns, state and files; you can undo it.
          </Dialog.Description>
          <ChatTotals tree={tree} />
          <div className="min-h-0 flex-1 overflow-y-auto p-4">
            {versions.isPending ? (
              <p className="text-sm text-zinc-500">Loading…</p>
            ) : versions.isError ? (
              <p role="alert" className="text-sm text-red-600 dark:text-red-400">
                {versions.error.message}
              </p>
            ) : (
              <ul aria-label="Versions" className="space-y-2">
                {foldSwitches(versions.data).map(({ version, folded }) => (
                  <Version
                    key={version.marker_invocation_id ?? "current"}
                    version={version}
                    disabled={disabled}
                    onRestore={restore(version)}
                    facts={facts(version)}
                    onCompare={compare(version)}
                  >
                    {folded.length > 0 && (
                      <Folded count={folded.length}>
                        {folded.map((v) => (
                          <Version
                            key={v.marker_invocation_id}
                            version={v}
                            disabled={disabled}
                            onRestore={restore(v)}
                            facts={facts(v)}
                            onCompare={compare(v)}
                            nested
                          />
                        ))}
                      </Folded>
                    )}
                  </Version>
                ))}
              </ul>
            )}
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
