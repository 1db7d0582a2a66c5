"use client";

import { type InfiniteData, keepPreviousData, type QueryClient, useInfiniteQuery, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { type ApiPage, api, apiPage } from "@/lib/api/client";
import type { ArtifactInfo, SearchHit, SessionRecord, SessionSummary, VersionInfo } from "@/lib/db/types";
import { CHATS_PER_PAGE, HITS_PER_PAGE, queryKeys, TURNS_PER_PAGE } from "@/lib/query-keys";
import type { ChatTree } from "@/lib/session/tree";
import { invocationIdOf } from "@/lib/task/metadata";
import type { Task } from "@/lib/task/types";

/** Loaded pages of a listing, the latest first (older pages are "next": refetching walks back from the latest). */
type Pages<T> = InfiniteData<ApiPage<T>, string | null>;

/**
 * The session (name, lineage, merged state): one query, shared by the chat's header and its state panel. `poll`
 * reads it again every that many milliseconds (a chat waiting for a decision another tab or client may give).
 */
export function useSessionQuery(sessionId: string | null, initial?: SessionRecord, poll?: number) {
  return useQuery({
    queryKey: queryKeys.session(sessionId ?? ""),
    queryFn: () => fetchSession(sessionId!),
    enabled: Boolean(sessionId),
    initialData: initial,
    refetchInterval: poll,
  });
}

const fetchSession = (id: string) => api<{ session: SessionRecord }>(`/api/sessions/${id}?include_events=false`).then((d) => d.session);
const fetchArtifacts = (id: string) => api<ArtifactInfo[]>(`/api/sessions/${id}/artifacts`);
const fetchTaskPage = (id: string, includeRewound: boolean, before: string | null) =>
  apiPage<Task>(`/api/sessions/${id}/tasks${includeRewound ? "?include_rewound=true" : ""}`, TURNS_PER_PAGE, before);

/** A chat's loaded turns, oldest first. */
const chronological = (data: Pages<Task>) => [...data.pages].reverse().flatMap((page) => page.data);

/**
 * The session's turns, effective or with the rewound ones flagged, a page at a time: the latest page
 * first (`initial` is the one the server rendered), older ones by `fetchNextPage` as the reader scrolls up.
 */
export function useTasksQuery(sessionId: string | null, includeRewound: boolean, initial?: ApiPage<Task>) {
  return useInfiniteQuery({
    queryKey: queryKeys.tasks(sessionId ?? "", includeRewound),
    queryFn: ({ pageParam }) => fetchTaskPage(sessionId!, includeRewound, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next_before,
    enabled: Boolean(sessionId),
    initialData: includeRewound || !initial ? undefined : { pages: [initial], pageParams: [null] },
    placeholderData: keepPreviousData,
    select: chronological,
  });
}

/** Drops the turns from `invocationId` on from a cached list at once (a rewind or a resend); the server stays the authority. */
export function truncateTasks(queryClient: QueryClient, sessionId: string, invocationId: string) {
  queryClient.setQueryData<Pages<Task>>(queryKeys.tasks(sessionId, false), (old) => {
    const index = old ? chronological(old).findIndex((t) => invocationIdOf(t) === invocationId) : -1;
    if (!old || index < 0) return old;
    let seen = 0;
    const oldestFirst = [...old.pages].reverse().map((page) => {
      const kept = page.data.slice(0, Math.max(0, index - seen));
      seen += page.data.length;
      return { ...page, data: kept };
    });
    return { ...old, pages: oldestFirst.reverse() };
  });
}

/** The loaded effective turns of a chat, oldest first, as the list shows them. */
export function loadedTasks(queryClient: QueryClient, sessionId: string): Task[] {
  const data = queryClient.getQueryData<Pages<Task>>(queryKeys.tasks(sessionId, false));
  return data ? chronological(data) : [];
}

export function useArtifactsQuery(sessionId: string | null) {
  return useQuery({
    queryKey: queryKeys.artifacts(sessionId ?? ""),
    queryFn: () => fetchArtifacts(sessionId!),
    enabled: Boolean(sessionId),
  });
}

/** The chat's heads for History, newest first; read afresh each time the panel opens. */
export function useVersionsQuery(sessionId: string | null, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.versions(sessionId ?? ""),
    queryFn: () => api<VersionInfo[]>(`/api/sessions/${sessionId}/versions`),
    enabled: Boolean(sessionId) && enabled,
    staleTime: 0,
  });
}

/** The chat's map: every turn, its versions, forks and source; read afresh each time the map opens. */
export function useTreeQuery(sessionId: string | null, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.tree(sessionId ?? ""),
    queryFn: () => api<ChatTree>(`/api/sessions/${sessionId}/tree`),
    enabled: Boolean(sessionId) && enabled,
    staleTime: 0,
  });
}

/** The loaded chats, newest first; a chat shown before its page was refetched (just made) is listed once. */
function distinctChats(data: Pages<SessionSummary>): SessionSummary[] {
  const seen = new Set<string>();
  return data.pages.flatMap((page) => page.data).filter((s) => !seen.has(s.id) && Boolean(seen.add(s.id)));
}

/** The user's chats, most recently active first, a page at a time (`initial` is the page the server rendered). */
export function useSessionsQuery(initial: ApiPage<SessionSummary>) {
  return useInfiniteQuery({
    queryKey: queryKeys.sessions,
    queryFn: ({ pageParam }) => apiPage<SessionSummary>("/api/sessions", CHATS_PER_PAGE, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next_before,
    initialData: { pages: [initial], pageParams: [null] },
    select: distinctChats,
  });
}

/** The user's messages holding the words of `q`, newest first, a page at a time; nothing is asked while `q` is empty. */
export function useSearchQuery(q: string, includeRewound: boolean) {
  return useInfiniteQuery({
    queryKey: queryKeys.search(q, includeRewound),
    queryFn: ({ pageParam }) =>
      apiPage<SearchHit>(`/api/search?${new URLSearchParams({ q, include_rewound: String(includeRewound) })}`, HITS_PER_PAGE, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next_before,
    enabled: q !== "",
    placeholderData: keepPreviousData,
    select: (data) => data.pages.flatMap((page) => page.data),
  });
}

/** Shows a chat the user just made or duplicated at the top of the sidebar, before the list is refetched. */
export function addChat(queryClient: QueryClient, session: SessionSummary) {
  queryClient.setQueryData<Pages<SessionSummary>>(queryKeys.sessions, (old) =>
    old ? { ...old, pages: old.pages.map((page, i) => (i === 0 ? { ...page, data: [session, ...page.data] } : page)) } : old,
  );
}

export function removeChat(queryClient: QueryClient, sessionId: string) {
  queryClient.setQueryData<Pages<SessionSummary>>(queryKeys.sessions, (old) =>
    old ? { ...old, pages: old.pages.map((page) => ({ ...page, data: page.data.filter((s) => s.id !== sessionId) })) } : old,
  );
}

/**
 * Refetches everything a turn may have changed: tasks, session (name, state), files, versions, the map and the
 * chat list. A read still in flight started before the change; React Query would answer the refetch with it
 * (a query without data yet, such as a new chat's first page of turns, is never refetched while it loads),
 * so it is cancelled first.
 */
export function useRefreshSession() {
  const queryClient = useQueryClient();
  return useCallback(
    async (id: string) => {
      const keys = [
        queryKeys.allTasks(id),
        queryKeys.session(id),
        queryKeys.artifacts(id),
        queryKeys.versions(id),
        queryKeys.tree(id),
        queryKeys.sessions,
      ];
      await Promise.all(keys.map((queryKey) => queryClient.cancelQueries({ queryKey })));
      await Promise.all(keys.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
    },
    [queryClient],
  );
}

/**
 * After a rewind, restore or switch: reads the chat's turns (as many pages as are loaded), session and files,
 * then shows them in one render, so the list, state panel and files never show two branches at once.
 */
export function useReloadChat() {
  const queryClient = useQueryClient();
  return useCallback(
    async (id: string) => {
      // A fetch that started before the change (say, the rewound-turns switch flipped meanwhile) would answer with
      // the old branch after this one: cancelled, it cannot.
      const reads = [queryKeys.allTasks(id), queryKeys.session(id), queryKeys.artifacts(id)];
      await Promise.all(reads.map((queryKey) => queryClient.cancelQueries({ queryKey })));
      const lists = queryClient.getQueryCache().findAll({ queryKey: queryKeys.allTasks(id) });
      const shown = lists.filter((query) => query.getObserversCount() > 0);
      const reload = async (includeRewound: boolean, count: number) => {
        const pages: ApiPage<Task>[] = [];
        const pageParams: (string | null)[] = [];
        for (let before: string | null = null; pages.length < count; before = pages.at(-1)!.next_before) {
          pageParams.push(before);
          pages.push(await fetchTaskPage(id, includeRewound, before));
          if (!pages.at(-1)!.next_before) break;
        }
        return { key: queryKeys.tasks(id, includeRewound), data: { pages, pageParams } };
      };
      const [session, artifacts, ...tasks] = await Promise.all([
        fetchSession(id),
        fetchArtifacts(id),
        ...shown.map((query) => reload(query.queryKey[2] === true, (query.state.data as Pages<Task> | undefined)?.pages.length ?? 1)),
      ]);
      queryClient.setQueryData(queryKeys.session(id), session);
      queryClient.setQueryData(queryKeys.artifacts(id), artifacts);
      for (const { key, data } of tasks) queryClient.setQueryData(key, data);
      const hidden = lists.filter((query) => !shown.includes(query));
      for (const query of hidden) void queryClient.invalidateQueries({ queryKey: query.queryKey, exact: true });
      void queryClient.invalidateQueries({ queryKey: queryKeys.versions(id) });
      void queryClient.invalidateQueries({ queryKey: queryKeys.tree(id) });
      void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
    },
    [queryClient],
  );
}

/**
 * Shows the version holding an invocation: the one browser path for a switch (the version pager, the map, a search
 * hit). The JSON API, not a server action: a map click waits for it, and Next.js's action round trip answered a
 * switch in 30–135 ms that the API answers in about 10 (docs/performance.md, "The map"). Resolves with the marker it
 * wrote, or null when that version was shown already.
 */
export async function switchVersion(sessionId: string, invocationId: string): Promise<string | null> {
  const { event } = await api<{ event: { invocation_id: string } | null }>(`/api/sessions/${encodeURIComponent(sessionId)}/switch`, {
    method: "POST",
    body: JSON.stringify({ invocation_id: invocationId }),
  });
  return event?.invocation_id ?? null;
}
