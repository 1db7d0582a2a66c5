"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import type { Dispatch, SetStateAction } from "react";
import type { SentFile } from "@/lib/a2a/client";
import type { ModelInfo } from "@/lib/agent/types";
import { forkChat, rewindChat } from "@/lib/api/chat-actions";
import { api } from "@/lib/api/client";
import type { VersionInfo } from "@/lib/db/types";
import { queryKeys } from "@/lib/query-keys";
import type { ChatTree } from "@/lib/session/tree";
import { invocationIdOf } from "@/lib/task/metadata";
import type { Task } from "@/lib/task/types";
import { notifyError, notifySuccess, notifyUndo } from "../../ui/notify";
import type { RewindFirst } from "../conversation/use-live-turn";
import { focusPagerAfterSwitch } from "../history/version-pager";
import { addChat, loadedTasks, switchVersion, truncateTasks, useReloadChat } from "../queries";
import { DraftSwap } from "../rewind/draft-swap";
import { announce } from "../tab-sync";
import { actedFrom, actedFromSiblingOf, actedIn, actedOffPath } from "../tools/tool-effects";
import { unwrapAction } from "../unwrap-action";
import { plural } from "./turn-rows";

/** What a person can do to a turn from its menus, its version pager, a rewound run's divider and History. */
export interface TurnActions {
  rewind(invocationId: string, text: string): void;
  fork(invocationId: string, text: string): void;
  /**
   * Edit & resend (new text) or Regenerate (same text): rewind before the turn and send, in one request, with the
   * turn's files; on `model` when given ("Regenerate with…"), else on the composer's.
   */
  resend(invocationId: string, text: string, reason: RewindFirst["reason"], files: SentFile[], model?: string): void;
  /** Brings back what a marker hid, by rewinding before that marker (docs/semantics.md, "Versions"): a divider's or History's Restore. */
  restore(markerInvocationId: string, from: "divider" | "history"): void;
  /** Shows the branch holding another version of a turn; focus returns to the pager button that asked. */
  switchTo(invocationId: string, button: "Previous version" | "Next version"): void;
  /** Shows the version holding a turn the map names, with the Undo a rewind offers; resolves once it shows. */
  showVersion(invocationId: string): Promise<void>;
  /** Opens two versions of a turn side by side, starting from this one. */
  compare(invocationId: string): void;
  /** The models the chat's agent offers, for "Regenerate with…". */
  models: ModelInfo[];
  /** Sends the decision on the calls the turn waits for (docs/api.md, "Tool approval"). */
  decide(task: Task, data: Record<string, unknown>): void;
}

export function useTurnActions(opts: {
  sessionId: string | null;
  busy: boolean;
  setPending: (pending: boolean) => void;
  setText: Dispatch<SetStateAction<string>>;
  /** What the composer holds now. */
  draft: () => string;
  send: (text: string, rewindFirst: RewindFirst, files: SentFile[], model?: string) => void;
  compare: (invocationId: string) => void;
  models: ModelInfo[];
  decide: (task: Task, data: Record<string, unknown>) => void;
  /** Asks before a rewind hides this many calls that acted in the world (true: go on). */
  confirmEffects: (count: number) => Promise<boolean>;
}): TurnActions {
  const { sessionId, busy, setPending, setText } = opts;
  const router = useRouter();
  const queryClient = useQueryClient();
  const reload = useReloadChat();
  const { confirmEffects } = opts;
  const loaded = () => (sessionId ? loadedTasks(queryClient, sessionId) : []);
  /** The tree, read only when the loaded turns hold calls that acted in the world (the map's and History's changes). */
  const tree = (id: string) => api<ChatTree>(`/api/sessions/${encodeURIComponent(id)}/tree`);
  async function actedBySwitching(invocationId: string) {
    const tasks = loaded();
    return sessionId && actedIn(tasks) > 0 ? actedOffPath(tasks, await tree(sessionId), invocationId, true) : 0;
  }
  /** Restoring the head a marker ended: the turns not on that head's path are hidden. */
  async function actedByRestoring(markerInvocationId: string) {
    const tasks = loaded();
    if (!sessionId || actedIn(tasks) === 0) return 0;
    const heads = await api<VersionInfo[]>(`/api/sessions/${encodeURIComponent(sessionId)}/versions`);
    const head = heads.find((h) => h.marker_invocation_id === markerInvocationId);
    return head ? actedOffPath(tasks, await tree(sessionId), head.last_invocation_id) : 0;
  }

  /** Runs a rewind or switch, then shows the chat's new view in one render; null when it failed (the toast says why). */
  async function change<T>(run: (sessionId: string) => Promise<T>, before?: () => void): Promise<T | null> {
    if (!sessionId || busy) return null;
    setPending(true);
    before?.();
    try {
      return await run(sessionId);
    } catch (error) {
      notifyError(error);
      return null;
    } finally {
      await reload(sessionId).catch(notifyError);
      announce(sessionId);
      setPending(false);
    }
  }

  /** Rewinds before `invocationId`; resolves with the marker (for Undo) and how many loaded turns it hid, or null. */
  async function rewindTo(invocationId: string, reason: "rewind" | "undo" | "restore") {
    const before = sessionId ? loadedTasks(queryClient, sessionId) : [];
    const index = before.findIndex((t) => invocationIdOf(t) === invocationId);
    const result = await change(
      (id) => unwrapAction(rewindChat({ sessionId: id, invocationId, reason })),
      // A rewind's list is known at once; an undo or restore waits for the server's.
      () => reason === "rewind" && sessionId && truncateTasks(queryClient, sessionId, invocationId),
    );
    return result && { ...result, count: index >= 0 ? before.length - index : 0 };
  }

  /**
   * The Undo toast after a rewind: rewinding before its marker undoes it (docs/semantics.md, "Rewind"). It
   * belongs to this chat: leaving the chat takes it away (Chat), so its Undo never changes a chat out of sight.
   */
  const offerUndo = (
    markerInvocationId: string,
    words: { title: string; description: string; undone: string },
    afterUndo?: () => void,
    extra?: React.ReactNode,
  ) =>
    notifyUndo({
      title: words.title,
      description: words.description,
      scope: sessionId ?? undefined,
      extra,
      onUndo: async () => {
        if (await rewindTo(markerInvocationId, "undo")) {
          afterUndo?.();
          notifySuccess(words.undone);
        }
      },
    });

  return {
    async rewind(invocationId, userText) {
      if (!(await confirmEffects(actedFrom(loaded(), invocationId)))) return;
      const result = await rewindTo(invocationId, "rewind");
      if (!result) return;
      // The rewound message goes into the composer, unless it holds a draft: that stays, and the toast offers to swap.
      let draft = opts.draft();
      const keepDraft = draft.trim() !== "" && draft.trim() !== userText.trim();
      if (!keepDraft) {
        draft = "";
        setText(userText);
      }
      const swap = (useMessage: boolean) => {
        if (useMessage) draft = opts.draft();
        setText(useMessage ? userText : draft);
      };
      const title = `Rewound ${plural(result.count, "turn")}`;
      const description = keepDraft
        ? "State and files are back to how they were before this message. Your draft is kept."
        : "State and files are back to how they were before this message.";
      // Undo gives the composer back what it held before, unless the user has changed it since.
      const afterUndo = () => setText((text) => (text === userText ? draft : text));
      offerUndo(
        result.markerInvocationId,
        { title, description, undone: "Rewind undone" },
        afterUndo,
        keepDraft ? <DraftSwap onSwap={swap} /> : undefined,
      );
    },
    async restore(markerInvocationId, from) {
      if (!(await confirmEffects(await actedByRestoring(markerInvocationId)))) return;
      const result = await rewindTo(markerInvocationId, "restore");
      if (!result) return;
      const title = from === "history" ? "Restored an earlier version" : "Restored the rewound turns";
      const description = "State and files are back to how they were then.";
      offerUndo(result.markerInvocationId, { title, description, undone: "Restore undone" });
    },
    async switchTo(invocationId, button) {
      if (!(await confirmEffects(actedFromSiblingOf(loaded(), invocationId)))) return;
      focusPagerAfterSwitch({ invocationId, button });
      const switched = await change(async (id) => ({ marker: await switchVersion(id, invocationId) }));
      if (!switched) focusPagerAfterSwitch(null);
    },
    async showVersion(invocationId) {
      if (!(await confirmEffects(await actedBySwitching(invocationId)))) return;
      const marker = await change((id) => switchVersion(id, invocationId));
      if (!marker) return;
      const description = "State and files are as they were in that version.";
      offerUndo(marker, { title: "Showing another version", description, undone: "Back to the version before" });
    },
    async fork(invocationId, userText) {
      if (!sessionId || busy) return;
      setPending(true);
      try {
        const fork = await unwrapAction(forkChat({ sessionId, invocationId }));
        addChat(queryClient, fork);
        void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
        void queryClient.invalidateQueries({ queryKey: queryKeys.session(sessionId) });
        announce(sessionId);
        router.push(`/chat/${fork.id}?draft=${encodeURIComponent(userText)}`);
      } catch (error) {
        notifyError(error);
        setPending(false);
      }
    },
    decide(task, data) {
      if (!busy) opts.decide(task, data);
    },
    async resend(invocationId, text, reason, files, model) {
      if (!sessionId || busy || !(await confirmEffects(actedFrom(loaded(), invocationId)))) return;
      truncateTasks(queryClient, sessionId, invocationId);
      opts.send(text, { invocationId, reason }, files, model);
    },
    compare: opts.compare,
    models: opts.models,
  };
}
