"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import { Plus } from "lucide-react";
import Link from "next/link";
import { useEffect, useMemo, useRef, useState } from "react";
import type { SignInOptions, Viewer } from "@/lib/accounts/viewer";
import type { ApiPage } from "@/lib/api/client";
import type { SessionSummary } from "@/lib/db/types";
import { AccountArea } from "../../account/account-area";
import { ThemeMenu } from "../../ui/theme-menu";
import { ImportChats } from "../export/import-chats";
import { useSessionsQuery } from "../queries";
import { SearchBox, SearchResults, type SearchState } from "../search/search";
import { useShownChatId } from "../use-shown-chat";
import { ChatRow } from "./chat-row";
import { useHiddenChats } from "./pending-deletes";

const DAY = 86_400_000;
/** The next page of chats is fetched while the reader is within this many rows of the last one loaded. */
const LOAD_AHEAD = 15;

type Row = { kind: "day"; label: string } | { kind: "chat"; session: SessionSummary };

/** The chats under day headings (Today, Yesterday, Previous 7 days, Older), as one flat list of rows. */
export function rowsByDay(sessions: SessionSummary[], now = Date.now()): Row[] {
  const startOfToday = new Date(now).setHours(0, 0, 0, 0);
  const labels = ["Today", "Yesterday", "Previous 7 days", "Older"];
  const rows: Row[] = [];
  let current = -1;
  for (const session of sessions) {
    const t = Date.parse(session.updated_at);
    const day = t >= startOfToday ? 0 : t >= startOfToday - DAY ? 1 : t >= startOfToday - 7 * DAY ? 2 : 3;
    // Newest first, so each heading starts once; a later heading never comes back to an earlier one.
    if (day > current) {
      current = day;
      rows.push({ kind: "day", label: labels[day] });
    }
    rows.push({ kind: "chat", session });
  }
  return rows;
}

/** The user's chats, a page at a time as they scroll, in a virtualised list (thousands of chats stay light). */
function ChatList({ initialSessions }: { initialSessions: ApiPage<SessionSummary> }) {
  const sessions = useSessionsQuery(initialSessions);
  const hidden = useHiddenChats();
  const activeId = useShownChatId();
  const rows = useMemo(() => rowsByDay(sessions.data.filter((s) => !hidden.has(s.id))), [sessions.data, hidden]);
  const scroller = useRef<HTMLElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: (index) => (rows[index].kind === "day" ? 28 : 32),
    getItemKey: (index) => {
      const row = rows[index];
      return row.kind === "day" ? `day:${row.label}` : row.session.id;
    },
    overscan: 8,
    // The server renders the first rows of a typical sidebar.
    initialRect: { width: 256, height: 800 },
  });
  const shown = virtualizer.getVirtualItems();

  const lastShown = shown.at(-1)?.index;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = sessions;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && lastShown !== undefined && lastShown >= rows.length - LOAD_AHEAD) {
      void fetchNextPage({ cancelRefetch: false });
    }
  }, [hasNextPage, isFetchingNextPage, lastShown, rows.length, fetchNextPage]);

  return (
    <nav ref={scroller} aria-label="Chats" aria-busy={isFetchingNextPage} className="-mx-1 flex-1 overflow-y-auto px-1">
      {rows.length === 0 && <p className="px-2 py-4 text-sm text-zinc-500">No chats yet.</p>}
      <div className="relative" style={{ height: virtualizer.getTotalSize() }}>
        <div className="absolute inset-x-0 top-0" style={{ transform: `translateY(${shown[0]?.start ?? 0}px)` }}>
          {shown.map((v) => {
            const row = rows[v.index];
            return (
              <div key={v.key} data-index={v.index} ref={virtualizer.measureElement}>
                {row.kind === "day" ? (
                  <h2 className={`px-2 pb-1 text-xs font-medium text-zinc-500 ${v.index > 0 ? "pt-3" : ""}`}>{row.label}</h2>
                ) : (
                  <ChatRow session={row.session} active={row.session.id === activeId} />
                )}
              </div>
            );
          })}
        </div>
      </div>
    </nav>
  );
}

export type AccountProps = { viewer: Viewer; options: SignInOptions };

/** The sidebar: new chat, search (its results take the chat list's place), the chats, the account. `onNavigate`: a hit was opened. */
export function Sidebar({
  initialSessions,
  account,
  onNavigate,
}: {
  initialSessions: ApiPage<SessionSummary>;
  account: AccountProps;
  onNavigate?: () => void;
}) {
  const [search, setSearch] = useState<SearchState>({ text: "", includeRewound: false });
  const searchInput = useRef<HTMLInputElement>(null);
  return (
    <div className="flex h-full flex-col gap-2 p-3">
      <div className="flex items-center justify-between px-1">
        <Link href="/" className="text-base font-semibold tracking-tight">
          Retrace
        </Link>
        <ThemeMenu />
      </div>
      <Link
        href="/"
        className="flex items-center gap-2 rounded-md border border-zinc-300 px-3 py-2 text-sm font-medium hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
      >
        <Plus className="size-4" aria-hidden /> New chat
      </Link>
      <SearchBox state={search} onChange={setSearch} inputRef={searchInput} />
      {search.text.trim() ? (
        <SearchResults state={search} onChange={setSearch} inputRef={searchInput} onOpened={onNavigate} />
      ) : (
        <ChatList initialSessions={initialSessions} />
      )}
      <div className="-mx-1 flex flex-col gap-1 border-t border-zinc-200 px-1 pt-2 dark:border-zinc-800">
        <ImportChats />
        <AccountArea viewer={account.viewer} options={account.options} />
      </div>
    </div>
  );
}
