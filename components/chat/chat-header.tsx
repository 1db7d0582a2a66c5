"use client";

import { GitFork, History, Network, PanelRight, Share2 } from "lucide-react";
import Link from "next/link";
import { Switch } from "radix-ui";
import { useRef } from "react";
import type { AgentInfo } from "@/lib/agent/types";
import type { SessionRecord } from "@/lib/db/types";
import { Button } from "../ui/button";
import { cn } from "../ui/cn";
import { type OpenedSheet, usePagePanel } from "../ui/use-page-dialog";
import { ChatMenu, type HeaderPanel } from "./chat-menu";
import { ExportMenu } from "./export/export-menu";
import { HistoryPanel } from "./history/history-panel";
import { MapPanel } from "./map/map-panel";
import { ShareDialog } from "./share/share-dialog";
import { StatePanelSheet } from "./state/state-panel";

function RewoundToggle({ checked, onChange }: { checked: boolean; onChange: (v: boolean) => void }) {
  return (
    <div className="flex items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400">
      <Switch.Root
        id="show-rewound"
        checked={checked}
        onCheckedChange={onChange}
        aria-label="Show rewound turns"
        className="relative h-4 w-7 shrink-0 rounded-full touch:before:absolute touch:before:-inset-3.5 touch:before:content-[''] bg-zinc-300 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-500 data-[state=checked]:bg-zinc-900 dark:bg-zinc-700 dark:data-[state=checked]:bg-zinc-100"
      >
        <Switch.Thumb className="block size-3 translate-x-0.5 rounded-full bg-white transition-transform data-[state=checked]:translate-x-3.5 dark:bg-zinc-900" />
      </Switch.Root>
      <label htmlFor="show-rewound" className="cursor-pointer whitespace-nowrap select-none">
        Show rewound turns
      </label>
    </div>
  );
}

const BUTTON = "px-2.5 py-2 text-xs touch:min-h-11";

/**
 * The chat's name, its agent (a choice before the first message), and the chat's controls — the rewound-turns
 * switch, Map, History, Share, Export and the state sheet — each with a visible label. Where the header is too
 * narrow for their row (under 640 px of it: a phone, or a tablet beside the sidebar), they are the items of its
 * "More" menu, and the chat's name keeps the row.
 */
export function ChatHeader({
  session,
  sessionId,
  agents,
  agent,
  onAgentChange,
  showRewound,
  onShowRewoundChange,
  busy,
  onRestoreVersion,
  onShowVersion,
  onCompareVersions,
}: {
  session: SessionRecord | undefined;
  sessionId: string | null;
  agents: AgentInfo[];
  agent: string;
  onAgentChange: (agent: string) => void;
  showRewound: boolean;
  onShowRewoundChange: (show: boolean) => void;
  busy: boolean;
  onRestoreVersion: (markerInvocationId: string) => void;
  onShowVersion: (invocationId: string) => void;
  onCompareVersions: (invocationId: string) => void;
}) {
  const [panel, setPanel] = usePagePanel<HeaderPanel>();
  // What opened the sheet (its button, or the menu's), where focus goes back when it closes.
  const opener = useRef<HTMLElement | null>(null);
  const openPanel = (which: HeaderPanel, from: HTMLElement | null) => {
    opener.current = from;
    setPanel(which);
  };
  const sheet = (which: HeaderPanel): OpenedSheet => ({
    open: panel === which,
    onOpenChange: (open) => setPanel(open ? which : null),
    returnFocus: () => opener.current?.focus(),
  });
  const opens = (which: HeaderPanel) => (e: React.MouseEvent<HTMLElement>) => openPanel(which, e.currentTarget);
  return (
    <header className="@container flex flex-wrap items-center gap-x-3 gap-y-1 border-b border-zinc-200 py-2 pr-2 pl-12 md:pl-4 dark:border-zinc-800">
      <h1 className="min-w-0 flex-1 content-center truncate text-sm font-semibold touch:min-h-11" title={session?.name}>
        {session?.name ?? "New chat"}
      </h1>
      {session ? (
        // On a phone the header's room goes to the chat's name.
        <span className="hidden rounded-full bg-zinc-100 px-2 py-0.5 text-xs text-zinc-600 sm:inline dark:bg-zinc-800 dark:text-zinc-300">
          {session.agent}
        </span>
      ) : (
        <select
          aria-label="Agent"
          value={agent}
          onChange={(e) => onAgentChange(e.target.value)}
          className="rounded-md border border-zinc-300 bg-transparent px-2 py-1 text-xs dark:border-zinc-700 dark:bg-zinc-950"
        >
          {agents.map((a) => (
            <option key={a.name} value={a.name}>
              {a.name}
            </option>
          ))}
        </select>
      )}
      {sessionId && (
        <>
          <div className="hidden items-center justify-end gap-3 @min-[40rem]:flex">
            <RewoundToggle checked={showRewound} onChange={onShowRewoundChange} />
            <Button className={BUTTON} onClick={opens("map")}>
              <Network className="size-4" aria-hidden />
              Map
            </Button>
            <Button className={BUTTON} onClick={opens("history")}>
              <History className="size-4" aria-hidden />
              History
            </Button>
            <Button className={BUTTON} disabled={busy} onClick={opens("share")}>
              <Share2 className="size-4" aria-hidden />
              Share
            </Button>
            <ExportMenu sessionId={sessionId} className={BUTTON} />
            <Button aria-label="Open state panel" className={cn(BUTTON, "lg:hidden")} onClick={opens("state")}>
              <PanelRight className="size-4" aria-hidden />
              State
            </Button>
          </div>
          <div className="@min-[40rem]:hidden">
            <ChatMenu
              sessionId={sessionId}
              showRewound={showRewound}
              onShowRewoundChange={onShowRewoundChange}
              busy={busy}
              onOpen={openPanel}
            />
          </div>
          <MapPanel sessionId={sessionId} busy={busy} onShow={onShowVersion} onCompare={onCompareVersions} sheet={sheet("map")} />
          <HistoryPanel
            sessionId={sessionId}
            disabled={busy}
            onRestore={onRestoreVersion}
            onCompare={onCompareVersions}
            sheet={sheet("history")}
          />
          <ShareDialog sessionId={sessionId} sheet={sheet("share")} />
          <StatePanelSheet sessionId={sessionId} sheet={sheet("state")} />
        </>
      )}
    </header>
  );
}

/** "Forked from <source>", linking back to it. */
export function ForkBanner({ session }: { session: SessionRecord | undefined }) {
  if (!session?.forked_from_session_id) return null;
  return (
    <div className="border-b border-zinc-200 bg-zinc-50 px-4 py-2 text-sm dark:border-zinc-800 dark:bg-zinc-900">
      <GitFork className="mr-1.5 inline size-3.5" aria-hidden />
      {session.forked_from_name ? (
        <Link className="underline underline-offset-2" href={`/chat/${session.forked_from_session_id}`}>
          Forked from {session.forked_from_name}
        </Link>
      ) : (
        <span>Forked from a deleted chat</span>
      )}
    </div>
  );
}
