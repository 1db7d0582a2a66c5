"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { forkChat, rewindChat } from "@/app/(chat)/actions";
import { invocationIdOf } from "@/lib/a2a/metadata";
import type { Task } from "@/lib/a2a/types";
import type { SessionSummary } from "@/lib/db/types";
import { queryKeys } from "@/lib/query-keys";
import { notifyError, notifySuccess, notifyUndo } from "../ui/notify";
import { useRefreshSession } from "./queries";
import { unwrapAction } from "./unwrap-action";
import type { RewindFirst } from "./use-live-turn";

/** What a person can do to a turn from its menus and from a rewound run's divider. */
export interface TurnActions {
  rewind(invocationId: string, text: string): void;
  fork(invocationId: string, text: string): void;
  /** Edit & resend (new text) or Regenerate (same text): rewind before the turn and send, in one request. */
  resend(invocationId: string, text: string, reason: RewindFirst["reason"]): void;
  /** Brings back the turns a marker hid, by rewinding before that marker (docs/semantics.md, "Versions"). */
  restore(markerInvocationId: string): void;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export function useTurnActions(opts: {
  sessionId: string | null;
  busy: boolean;
  setPending: (pending: boolean) => void;
  setText: (text: string) => void;
  send: (text: string, rewindFirst: RewindFirst) => void;
}): TurnActions {
  const { sessionId, busy, setPending, setText } = opts;
  const router = useRouter();
  const queryClient = useQueryClient();
  const refresh = useRefreshSession();

  /** Drops the turns from `invocationId` on from the cached list at once; the server stays the authority. */
  const truncateFrom = (id: string, invocationId: string) => {
    queryClient.setQueryData<Task[]>(queryKeys.tasks(id, false), (old) => {
      const index = old?.findIndex((t) => invocationIdOf(t) === invocationId) ?? -1;
      return index >= 0 ? old!.slice(0, index) : old;
    });
  };

  /** Rewinds before `invocationId`; resolves with the marker (for Undo) and how many visible turns it hid, or null. */
  async function rewindTo(invocationId: string, reason: "rewind" | "undo" | "restore") {
    if (!sessionId || busy) return null;
    const before = queryClient.getQueryData<Task[]>(queryKeys.tasks(sessionId, false)) ?? [];
    const index = before.findIndex((t) => invocationIdOf(t) === invocationId);
    setPending(true);
    if (reason === "rewind") truncateFrom(sessionId, invocationId);
    try {
      const result = await unwrapAction(rewindChat({ sessionId, invocationId, reason }));
      return { ...result, count: index >= 0 ? before.length - index : 0 };
    } catch (error) {
      notifyError(error);
      return null;
    } finally {
      await refresh(sessionId);
      setPending(false);
    }
  }

  /** The Undo toast after a rewind: rewinding before its marker undoes it (docs/semantics.md, "Rewind"). */
  const offerUndo = (markerInvocationId: string, words: { title: string; description: string; undone: string }, afterUndo?: () => void) =>
    notifyUndo({
      title: words.title,
      description: words.description,
      onUndo: async () => {
        if (await rewindTo(markerInvocationId, "undo")) {
          afterUndo?.();
          notifySuccess(words.undone);
        }
      },
    });

  return {
    async rewind(invocationId, userText) {
      const result = await rewindTo(invocationId, "rewind");
      if (!result) return;
      setText(userText);
      const title = `Rewound ${plural(result.count, "turn")}`;
      const description = "State and files are back to how they were before this message.";
      offerUndo(result.markerInvocationId, { title, description, undone: "Rewind undone" }, () => setText(""));
    },
    async restore(markerInvocationId) {
      const result = await rewindTo(markerInvocationId, "restore");
      if (!result) return;
      const description = "State and files are back to how they were then.";
      offerUndo(result.markerInvocationId, { title: "Restored the rewound turns", description, undone: "Restore undone" });
    },
    async fork(invocationId, userText) {
      if (!sessionId || busy) return;
      setPending(true);
      try {
        const fork = await unwrapAction(forkChat({ sessionId, invocationId }));
        queryClient.setQueryData<SessionSummary[]>(queryKeys.sessions, (old) => [fork, ...(old ?? [])]);
        void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
        void queryClient.invalidateQueries({ queryKey: queryKeys.session(sessionId) });
        router.push(`/chat/${fork.id}?draft=${encodeURIComponent(userText)}`);
      } catch (error) {
        notifyError(error);
        setPending(false);
      }
    },
    resend(invocationId, text, reason) {
      if (!sessionId || busy) return;
      truncateFrom(sessionId, invocationId);
      opts.send(text, { invocationId, reason });
    },
  };
}
