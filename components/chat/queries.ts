"use client";

import type { Task } from "@a2a-js/sdk";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { api } from "@/lib/api/client";
import type { ArtifactInfo, SessionRecord, SessionSummary } from "@/lib/db/types";
import { queryKeys } from "@/lib/query-keys";

/** The session (name, lineage, merged state): one query, shared by the chat's header and its state panel. */
export function useSessionQuery(sessionId: string | null, initial?: SessionRecord) {
  return useQuery({
    queryKey: queryKeys.session(sessionId ?? ""),
    queryFn: () => api<{ session: SessionRecord }>(`/api/sessions/${sessionId}?include_events=false`).then((d) => d.session),
    enabled: Boolean(sessionId),
    initialData: initial,
  });
}

/** The session's tasks, effective or with the rewound ones flagged; `initial` is what the server rendered. */
export function useTasksQuery(sessionId: string | null, includeRewound: boolean, initial?: Task[]) {
  return useQuery({
    queryKey: queryKeys.tasks(sessionId ?? "", includeRewound),
    queryFn: () => api<Task[]>(`/api/sessions/${sessionId}/tasks${includeRewound ? "?include_rewound=true" : ""}`),
    enabled: Boolean(sessionId),
    initialData: includeRewound ? undefined : initial,
    placeholderData: (previous) => previous,
  });
}

export function useArtifactsQuery(sessionId: string | null) {
  return useQuery({
    queryKey: queryKeys.artifacts(sessionId ?? ""),
    queryFn: () => api<ArtifactInfo[]>(`/api/sessions/${sessionId}/artifacts`),
    enabled: Boolean(sessionId),
  });
}

export function useSessionsQuery(initial: SessionSummary[]) {
  return useQuery({ queryKey: queryKeys.sessions, queryFn: () => api<SessionSummary[]>("/api/sessions"), initialData: initial });
}

/** Refetches everything a turn, rewind or fork may have changed: tasks, session (name, state), files and the chat list. */
export function useRefreshSession() {
  const queryClient = useQueryClient();
  return useCallback(
    async (id: string) => {
      await Promise.all(
        [queryKeys.allTasks(id), queryKeys.session(id), queryKeys.artifacts(id), queryKeys.sessions].map((queryKey) =>
          queryClient.invalidateQueries({ queryKey }),
        ),
      );
    },
    [queryClient],
  );
}
