"use client";

import { LoaderCircle, Search as SearchIcon, X } from "lucide-react";
import { Switch } from "radix-ui";
import { type RefObject, useEffect, useId, useState } from "react";
import type { SearchHit } from "@/lib/db/types";
import { parseQuery, type Snippet } from "@/lib/session/search-text";
import { Button } from "../../ui/button";
import { useSearchQuery } from "../queries";
import { useOpenHit } from "./use-open-hit";

/** What the sidebar's search box holds: the words, and whether rewound messages count. */
export interface SearchState {
  text: string;
  includeRewound: boolean;
}

/** Moves focus through the results (and the "More results" button after them). */
const focusHit = (from: Element | null, step: 1 | -1 | "first") => {
  const hits = [...document.querySelectorAll<HTMLElement>("[data-search-hit], [data-search-more]")];
  hits[step === "first" ? 0 : hits.indexOf(from as HTMLElement) + step]?.focus();
};

/** The search box ("Search chats") and the switch that includes rewound messages; ↓ moves into the results, Escape clears. */
export function SearchBox({
  state,
  onChange,
  inputRef,
}: {
  state: SearchState;
  onChange: (state: SearchState) => void;
  inputRef: RefObject<HTMLInputElement | null>;
}) {
  const rewoundSwitch = useId();
  return (
    <div className="flex flex-col gap-1.5">
      <div className="relative">
        <SearchIcon className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 text-zinc-400" aria-hidden />
        <input
          ref={inputRef}
          type="search"
          aria-label="Search chats"
          placeholder="Search chats"
          value={state.text}
          maxLength={500}
          onChange={(e) => onChange({ ...state, text: e.target.value })}
          onKeyDown={(e) => {
            if (e.key === "ArrowDown") {
              e.preventDefault();
              focusHit(null, "first");
            } else if (e.key === "Escape" && state.text) {
              e.preventDefault();
              onChange({ ...state, text: "" });
            }
          }}
          className="w-full rounded-md border border-zinc-300 bg-white py-1.5 pr-8 pl-8 text-sm placeholder:text-zinc-400 focus-visible:outline-2 focus-visible:outline-blue-500 touch:py-3 touch:pr-12 dark:border-zinc-700 dark:bg-zinc-950 [&::-webkit-search-cancel-button]:hidden"
        />
        {state.text && (
          <Button
            aria-label="Clear search"
            className="absolute top-1/2 right-1 size-7 -translate-y-1/2 p-0 touch:right-0.5 touch:size-11"
            onClick={() => {
              onChange({ ...state, text: "" });
              inputRef.current?.focus();
            }}
          >
            <X className="size-3.5" aria-hidden />
          </Button>
        )}
      </div>
      {state.text && (
        <div className="flex items-center gap-2 px-1 text-xs text-zinc-500 dark:text-zinc-400">
          <Switch.Root
            id={rewoundSwitch}
            checked={state.includeRewound}
            onCheckedChange={(includeRewound) => onChange({ ...state, includeRewound })}
            className="relative h-4 w-7 shrink-0 rounded-full bg-zinc-300 touch:before:absolute touch:before:-inset-3.5 touch:before:content-[''] focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-500 data-[state=checked]:bg-zinc-900 dark:bg-zinc-700 dark:data-[state=checked]:bg-zinc-100"
          >
            <Switch.Thumb className="block size-3 translate-x-0.5 rounded-full bg-white transition-transform data-[state=checked]:translate-x-3.5 dark:bg-zinc-900" />
          </Switch.Root>
          <label htmlFor={rewoundSwitch}>Include rewound messages</label>
        </div>
      )}
    </div>
  );
}

/** The snippet, its matched words marked: text and React elements only, never HTML. */
function Highlighted({ snippet }: { snippet: Snippet }) {
  const parts: React.ReactNode[] = [];
  let at = 0;
  for (const [start, end] of snippet.highlights) {
    parts.push(snippet.text.slice(at, start));
    parts.push(
      <mark key={start} className="rounded-sm bg-amber-200 text-inherit dark:bg-amber-400/30 dark:text-amber-100">
        {snippet.text.slice(start, end)}
      </mark>,
    );
    at = end;
  }
  parts.push(snippet.text.slice(at));
  return <>{parts}</>;
}

const when = (iso: string) => {
  const date = new Date(iso);
  const today = new Date().toDateString() === date.toDateString();
  return today
    ? date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : date.toLocaleDateString([], { day: "numeric", month: "short" });
};

function Hit({ hit, onOpen }: { hit: SearchHit; onOpen: (hit: SearchHit) => void }) {
  return (
    <li>
      <a
        data-search-hit
        href={`/chat/${hit.session_id}?turn=${encodeURIComponent(hit.invocation_id)}`}
        onClick={(e) => {
          if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
          e.preventDefault();
          onOpen(hit);
        }}
        className="block rounded-md px-2 py-2 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-blue-500 dark:hover:bg-zinc-800"
      >
        <span className="flex items-center gap-2 text-xs">
          <span className="min-w-0 flex-1 truncate font-medium text-zinc-800 dark:text-zinc-200">{hit.session_name}</span>
          <time dateTime={hit.timestamp} className="shrink-0 text-zinc-500">
            {when(hit.timestamp)}
          </time>
        </span>
        <span className="mt-0.5 line-clamp-3 text-[13px] leading-5 break-words text-zinc-600 dark:text-zinc-400">
          {hit.rewound && (
            <span className="mr-1.5 rounded bg-zinc-200 px-1.5 py-px text-[11px] text-zinc-700 dark:bg-zinc-700 dark:text-zinc-200">
              Rewound
            </span>
          )}
          <span className="font-medium text-zinc-700 dark:text-zinc-300">{hit.author === "user" ? "You" : hit.author}: </span>
          <Highlighted snippet={hit.snippet} />
        </span>
      </a>
    </li>
  );
}

/** The hits for what the box holds, newest first, a page at a time; ↑ ↓ move between them, Escape goes back to the box. */
export function SearchResults({
  state,
  onChange,
  inputRef,
  onOpened,
}: {
  state: SearchState;
  onChange: (state: SearchState) => void;
  inputRef: RefObject<HTMLInputElement | null>;
  onOpened?: () => void;
}) {
  // Typing runs ahead of the requests: one goes out once the typing pauses.
  const text = state.text.trim();
  const [q, setQ] = useState(text);
  useEffect(() => {
    const timer = setTimeout(() => setQ(text), 200);
    return () => clearTimeout(timer);
  }, [text]);
  const hasWord = parseQuery(q) !== null;
  const results = useSearchQuery(hasWord ? q : "", state.includeRewound);
  const open = useOpenHit(onOpened);
  const hits = results.data ?? [];
  // Nothing shown now: do rewound messages match? Then say so, with the way to see them.
  const noneShown = hasWord && !state.includeRewound && results.isSuccess && hits.length === 0;
  const rewound = useSearchQuery(noneShown ? q : "", true);
  const rewoundMatch = noneShown && (rewound.data?.length ?? 0) > 0;
  const status = !hasWord
    ? "Type a word to search for."
    : results.isError
      ? results.error.message
      : results.isPending
        ? "Searching…"
        : hits.length === 0
          ? "No messages match."
          : `${hits.length}${results.hasNextPage ? "+" : ""} ${hits.length === 1 ? "result" : "results"}`;
  return (
    <section
      aria-label="Search results"
      aria-busy={results.isFetching}
      className="-mx-1 flex-1 overflow-y-auto px-1"
      onKeyDown={(e) => {
        if (!(e.target instanceof HTMLElement) || !e.target.matches("[data-search-hit], [data-search-more]")) return;
        if (e.key === "ArrowDown" || e.key === "ArrowUp") {
          e.preventDefault();
          // Up from the first result goes back to the box.
          if (e.key === "ArrowUp" && e.target === document.querySelector("[data-search-hit]")) inputRef.current?.focus();
          else focusHit(e.target, e.key === "ArrowDown" ? 1 : -1);
        } else if (e.key === "Escape") inputRef.current?.focus();
      }}
    >
      <p role="status" className="flex items-center gap-1.5 px-2 pb-1 text-xs text-zinc-500">
        {results.isFetching && hasWord && <LoaderCircle className="size-3 animate-spin" aria-hidden />}
        {status}
      </p>
      {rewoundMatch && (
        <p className="px-2 pb-1 text-xs text-zinc-600 dark:text-zinc-300">
          Rewound messages match.{" "}
          <button
            type="button"
            className="font-medium underline underline-offset-2 touch:inline-flex touch:min-h-11 touch:items-center"
            onClick={() => onChange({ ...state, includeRewound: true })}
          >
            Include rewound messages
          </button>
        </p>
      )}
      {hasWord && hits.length > 0 && (
        <ul className="flex flex-col">
          {hits.map((hit) => (
            <Hit key={`${hit.session_id}/${hit.event_id}`} hit={hit} onOpen={open} />
          ))}
        </ul>
      )}
      {results.hasNextPage && (
        <Button
          data-search-more
          variant="ghost"
          className="mt-1 w-full text-xs text-zinc-600 touch:min-h-11 dark:text-zinc-300"
          disabled={results.isFetchingNextPage}
          onClick={() => void results.fetchNextPage()}
        >
          More results
        </Button>
      )}
    </section>
  );
}
