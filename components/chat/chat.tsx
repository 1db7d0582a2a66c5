"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useEffectEvent, useRef, useState } from "react";
import type { AgentInfo } from "@/lib/agent/types";
import type { ApiPage } from "@/lib/api/client";
import type { SessionRecord } from "@/lib/db/types";
import { queryKeys } from "@/lib/query-keys";
import { DEMO_AGENT } from "@/lib/session/names";
import { invocationIdOf } from "@/lib/task/metadata";
import type { Task } from "@/lib/task/types";
import { dismissUndos, notifyInfo } from "../ui/notify";
import { useHydrated } from "../ui/use-hydrated";
import { useOnline } from "../ui/use-online";
import { DropZone } from "./attachments/drop-zone";
import { type AttachmentLimits, useAttachments } from "./attachments/use-attachments";
import { ChatHeader, ForkBanner } from "./chat-header";
import { CompareDialog } from "./compare/compare-dialog";
import { Composer } from "./composer/composer";
import { ModelMenu } from "./composer/model-menu";
import { useChatModel } from "./composer/use-chat-model";
import { useComposerText } from "./composer/use-composer-text";
import { ConnectionStatus } from "./conversation/connection-status";
import { Conversation } from "./conversation/conversation";
import { useAnnounceReplies } from "./conversation/reply-announcer";
import { isRunning, useLiveTurn } from "./conversation/use-live-turn";
import { useRefreshSession, useSessionQuery, useTasksQuery } from "./queries";
import { StatePanel } from "./state/state-panel";
import { useEffectsWarning } from "./tools/effects-warning";
import { useShowTurnRequests } from "./turn/show-turn";
import { useTurnActions } from "./turn/use-turn-actions";

/** How often a chat whose last turn waits for a decision reads its session again. */
const DECISION_POLL_MS = 400;

/** A chat: header, its turns (from the session's tasks) and the live turn, the composer, and the state panel. */
export function Chat({
  session,
  initialTasks,
  agents,
  draft,
  targetTurn,
  attachmentLimits,
}: {
  session: SessionRecord | null;
  /** The latest page of turns, rendered by the server. */
  initialTasks?: ApiPage<Task>;
  agents: AgentInfo[];
  draft?: string;
  /** A turn to bring into view (a search hit's, `?turn=`). */
  targetTurn?: string;
  attachmentLimits: AttachmentLimits;
}) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const refresh = useRefreshSession();
  const [sessionId, setSessionId] = useState<string | null>(session?.id ?? null);
  const [agent, setAgent] = useState(session?.agent ?? agents[0]?.name ?? DEMO_AGENT);
  const composerRef = useRef<HTMLTextAreaElement>(null);
  const [text, setText] = useComposerText(sessionId, { startedHere: session === null, draft, composer: composerRef });
  const attachments = useAttachments(attachmentLimits);
  const [pending, setPending] = useState(false);
  /** A new chat's first turn ended and its own route is loading: this component is about to be replaced. */
  const [leaving, setLeaving] = useState(false);
  const [showRewound, setShowRewound] = useState(false);
  // Text typed before hydration would be dropped by React, so the composer waits for it (and for a running rewind or fork).
  const hydrated = useHydrated();
  const composerReady = hydrated && !pending;
  useEffect(() => {
    if (composerReady) composerRef.current?.focus();
  }, [composerReady]);
  // A chat's Undo toasts go when the user leaves it, so their Undo never changes a chat out of sight.
  useEffect(() => {
    if (sessionId) return () => dismissUndos(sessionId);
  }, [sessionId]);

  // The fork's prefilled draft lives in the URL only until it reaches the composer.
  useEffect(() => {
    if (draft !== undefined && sessionId) window.history.replaceState(null, "", `/chat/${sessionId}`);
  }, [draft, sessionId]);

  // A search hit's turn: from the URL when the chat opens, or asked for while it is open. An object, so asking
  // for the same turn again scrolls to it again.
  const [target, setTarget] = useState(targetTurn ? { invocationId: targetTurn } : null);
  useShowTurnRequests(sessionId, (invocationId) => setTarget({ invocationId }));
  const targetShown = useCallback(
    (found: boolean) => {
      setTarget(null);
      if (sessionId) window.history.replaceState(null, "", `/chat/${sessionId}`);
      if (!found) notifyInfo("That message is not among this chat's turns.");
    },
    [sessionId],
  );

  // The server's tasks belong to the session it rendered; a chat created here has no cache entry yet, so it fetches.
  const tasks = useTasksQuery(sessionId, showRewound, sessionId === session?.id ? initialTasks : undefined);
  // The chat's last turn waits for the user's decision on a tool call (docs/semantics.md, "Tools").
  const shownTasks = tasks.data?.filter((t) => t.metadata?.rewound !== true);
  const waiting = shownTasks?.at(-1)?.status.state === "input-required";
  // A decision given elsewhere (another tab, browser or A2A client) resumes the turn: polled, so it streams here within a second.
  const current = useSessionQuery(sessionId, session ?? undefined, waiting ? DECISION_POLL_MS : undefined).data;
  const changedAt = current?.updated_at;
  const refreshWaiting = useEffectEvent(() => {
    if (waiting && sessionId) void refresh(sessionId);
  });
  useEffect(() => {
    if (changedAt) refreshWaiting();
  }, [changedAt]);
  const models = agents.find((a) => a.name === agent)?.models ?? [];
  const chatModel = useChatModel(models, tasks.data);
  /** The turn whose versions are shown side by side, if any. */
  const [comparing, setComparing] = useState<string | null>(null);

  // The tab shows the chat's current name: automatic names change after turns and rewinds (both refetch the session).
  const title = current?.name ?? "Retrace";
  useEffect(() => {
    document.title = title;
  }, [title]);

  const turn = useLiveTurn({
    agent,
    sessionId,
    onCreated(id) {
      setSessionId(id);
      window.history.replaceState(null, "", `/chat/${id}`);
      void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
    },
    async onEnd(id) {
      if (id) await refresh(id);
      // A new chat becomes its own route, so later revalidations keep the page mounted; that page's
      // composer takes over what is typed here meanwhile (useComposerText).
      if (id && !sessionId) {
        setLeaving(true);
        router.replace(`/chat/${id}`);
      }
      composerRef.current?.focus();
    },
    restoreDraft: (message, files = []) => {
      setText((t) => t || message);
      attachments.restore(files);
    },
    lastTurn: () => {
      const shown = tasks.data?.filter((t) => t.metadata?.rewound !== true);
      return shown && (shown.length ? (invocationIdOf(shown[shown.length - 1]) ?? undefined) : null);
    },
  });
  const busy = turn.live !== null || pending || leaving;
  useAnnounceReplies(turn.live);
  const online = useOnline();

  // A turn already running in this chat (before a reload, in another tab, on another instance) streams here too.
  const runningTaskId = current?.running_task_id ?? null;
  const followRunning = useEffectEvent((taskId: string) => {
    const task = tasks.data?.find((t) => t.id === taskId);
    void turn.follow(taskId, task);
  });
  useEffect(() => {
    if (runningTaskId) followRunning(runningTaskId);
  }, [runningTaskId]);

  // Escape stops a streaming reply, unless something on top (a menu, a dialog, the edit box) took it.
  const running = isRunning(turn.live);
  const stopOnEscape = useEffectEvent((e: KeyboardEvent) => {
    if (e.key === "Escape" && !e.defaultPrevented) turn.stop();
  });
  useEffect(() => {
    if (!running) return;
    window.addEventListener("keydown", stopOnEscape);
    return () => window.removeEventListener("keydown", stopOnEscape);
  }, [running]);

  const warning = useEffectsWarning();
  const actions = useTurnActions({
    sessionId,
    busy,
    setPending,
    setText,
    draft: () => composerRef.current?.value ?? "",
    send: (message, rewindFirst, files, model = chatModel.model) => {
      chatModel.pick(model ?? null);
      void turn.send(message, rewindFirst, files, model);
    },
    decide: (task, data) => void turn.decide(task, data),
    confirmEffects: warning.confirm,
    compare: setComparing,
    models,
  });

  const { hasNextPage, isFetchingNextPage, fetchNextPage } = tasks;
  const loadOlder = useCallback(() => void fetchNextPage({ cancelRefetch: false }), [fetchNextPage]);
  const older = { more: hasNextPage, loading: isFetchingNextPage, load: loadOlder };

  const send = () => {
    const message = text.trim();
    setText("");
    void turn.send(message, undefined, attachments.take(), chatModel.model);
  };
  const retry = () => {
    if (!turn.failed) return;
    const { text: message, rewindFirst, files, model } = turn.failed;
    // The composer still holds the failed text; retrying sends it, so it leaves the composer too.
    setText((t) => (t.trim() === message ? "" : t));
    void turn.send(message, rewindFirst, files, model);
  };

  return (
    <div className="flex h-full min-w-0 flex-1">
      <DropZone onFiles={attachments.add} className="flex min-w-0 flex-1 flex-col">
        <ChatHeader
          session={current}
          sessionId={sessionId}
          agents={agents}
          agent={agent}
          onAgentChange={setAgent}
          showRewound={showRewound}
          onShowRewoundChange={setShowRewound}
          busy={busy}
          onRestoreVersion={(marker) => actions.restore(marker, "history")}
          onShowVersion={(invocationId) => void actions.showVersion(invocationId)}
          onCompareVersions={setComparing}
        />
        <ForkBanner session={current} />
        <Conversation
          sessionId={sessionId}
          tasks={tasks.data ?? []}
          older={older}
          live={turn.live}
          failed={turn.failed}
          busy={busy}
          actions={actions}
          onRetry={retry}
          target={target}
          onTargetShown={targetShown}
        />
        <div className="px-4 pt-2 pb-4">
          <ConnectionStatus />
          <Composer
            ref={composerRef}
            value={text}
            onChange={setText}
            onSend={send}
            onStop={turn.stop}
            streaming={running}
            canSend={!busy && online && !waiting}
            waiting={waiting}
            disabled={!composerReady}
            attachments={attachments}
            controls={
              models.length > 1 &&
              chatModel.model && <ModelMenu models={models} model={chatModel.model} onChange={chatModel.pick} disabled={!composerReady} />
            }
          />
        </div>
      </DropZone>
      {warning.dialog}
      <div className="hidden w-72 shrink-0 border-l border-zinc-200 lg:block dark:border-zinc-800">
        <StatePanel sessionId={sessionId} />
      </div>
      {sessionId && comparing && (
        <CompareDialog
          sessionId={sessionId}
          invocationId={comparing}
          busy={busy}
          onClose={() => setComparing(null)}
          onKeep={(invocationId) => {
            setComparing(null);
            void actions.showVersion(invocationId);
          }}
        />
      )}
    </div>
  );
}
