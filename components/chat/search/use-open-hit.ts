"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { rewindChat } from "@/lib/api/chat-actions";
import type { SearchHit } from "@/lib/db/types";
import { queryKeys } from "@/lib/query-keys";
import { notifyError, notifySuccess, notifyUndo } from "../../ui/notify";
import { switchVersion, useReloadChat } from "../queries";
import { showTurn } from "../turn/show-turn";
import { unwrapAction } from "../unwrap-action";

/**
 * Opens a search hit at its turn. A rewound one first switches its chat to the version holding it (a rewind,
 * so the toast offers Undo like any other), then shows that version: reloaded in place when the chat is open,
 * read afresh by the page otherwise.
 */
export function useOpenHit(onOpened?: () => void) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const reload = useReloadChat();

  /** Whether the chat is the one on screen now (an Undo may come after the reader moved on). */
  const isOpen = (sessionId: string) => window.location.pathname === `/chat/${sessionId}`;

  /** After a switch or its undo: the chat's views, and every search (which messages are rewound changed). */
  async function changed(sessionId: string) {
    void queryClient.invalidateQueries({ queryKey: queryKeys.searches });
    void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
    if (isOpen(sessionId)) await reload(sessionId);
    else
      for (const key of [queryKeys.allTasks, queryKeys.session, queryKeys.artifacts, queryKeys.versions])
        queryClient.removeQueries({ queryKey: key(sessionId) });
  }

  return async (hit: SearchHit) => {
    const { session_id: sessionId, invocation_id: invocationId } = hit;
    if (hit.rewound) {
      try {
        const markerInvocationId = await switchVersion(sessionId, invocationId);
        await changed(sessionId);
        if (markerInvocationId) {
          notifyUndo({
            title: "Switched to the version with this message",
            description: "State and files are as they were in that version.",
            scope: sessionId,
            onUndo: async () => {
              try {
                await unwrapAction(rewindChat({ sessionId, invocationId: markerInvocationId, reason: "undo" }));
                await changed(sessionId);
                notifySuccess("Switch undone");
              } catch (error) {
                notifyError(error);
              }
            },
          });
        }
      } catch (error) {
        notifyError(error);
        return;
      }
    }
    onOpened?.();
    if (isOpen(sessionId)) showTurn(sessionId, invocationId);
    else router.push(`/chat/${sessionId}?turn=${encodeURIComponent(invocationId)}`);
  };
}
