"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { GitFork, PanelRight } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { Switch } from "radix-ui";
import { useEffect, useLayoutEffect, useRef, useState, useSyncExternalStore } from "react";
import { toast } from "sonner";
import { forkChat, rewindChat } from "@/app/(chat)/actions";
import { cancelTask, streamMessage } from "@/lib/a2a/client";
import { messageText } from "@/lib/a2a/convert";
import type { Message, Task } from "@/lib/a2a/types";
import { api } from "@/lib/api/client";
import type { SessionRecord, SessionSummary } from "@/lib/db/types";
import { queryKeys } from "@/lib/query-keys";
import { Button } from "../ui/button";
import { cn } from "../ui/cn";
import { Composer } from "./composer";
import { StatePanel } from "./state-panel";
import { type TurnActions, TurnView } from "./turn-view";
import { unwrapAction } from "./unwrap-action";

interface Streaming {
  task: Task | null;
  userText: string;
  partial: string;
}

const invocationOf = (task: Task) => task.metadata?.kagent_invocation_id as string | undefined;
const noSubscription = () => () => {};
/** Turns rendered at first, and added by each "Show earlier turns": long chats open and update fast. */
const TURNS_PER_PAGE = 40;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function RewoundToggle({ checked, onChange }: { checked: boolean; onChange: (v: boolean) => void }) {
  return (
    <div className="flex items-center gap-2 text-xs text-zinc-500">
      <Switch.Root
        checked={checked}
        onCheckedChange={onChange}
        aria-label="Show rewound turns"
        className="relative h-4 w-7 rounded-full bg-zinc-300 data-[state=checked]:bg-zinc-900 dark:bg-zinc-700 dark:data-[state=checked]:bg-zinc-100"
      >
        <Switch.Thumb className="block size-3 translate-x-0.5 rounded-full bg-white transition-transform data-[state=checked]:translate-x-3.5 dark:bg-zinc-900" />
      </Switch.Root>
      <span className="hidden sm:inline" aria-hidden>
        Show rewound turns
      </span>
    </div>
  );
}

/** A chat: its turns (from the session's tasks), the live turn, the composer and the state panel. */
export function Chat({
  session,
  initialTasks,
  agents,
  draft,
}: {
  session: SessionRecord | null;
  initialTasks: Task[];
  agents: { name: string; description: string }[];
  draft?: string;
}) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [sessionId, setSessionId] = useState<string | null>(session?.id ?? null);
  const [agent, setAgent] = useState(session?.agent ?? agents[0]?.name ?? "demo");
  const [text, setText] = useState(draft ?? "");
  const [streaming, setStreaming] = useState<Streaming | null>(null);
  const [pending, setPending] = useState(false);
  /** A new chat's first turn ended and its own route is loading: this component is about to be replaced. */
  const [leaving, setLeaving] = useState(false);
  const [showRewound, setShowRewound] = useState(false);
  const [panelOpen, setPanelOpen] = useState(false);
  const composerRef = useRef<HTMLTextAreaElement>(null);
  const bottomRef = useRef<HTMLDivElement>(null);
  const busy = streaming !== null || pending || leaving;
  // Text typed before hydration would be dropped by React, so the composer waits for it (and for a running rewind or fork).
  const hydrated = useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
  const composerReady = hydrated && !pending;
  useEffect(() => {
    if (composerReady) composerRef.current?.focus();
  }, [composerReady]);

  // The fork's prefilled draft lives in the URL only until it reaches the composer.
  useEffect(() => {
    if (draft !== undefined && sessionId) window.history.replaceState(null, "", `/chat/${sessionId}`);
  }, [draft, sessionId]);

  const tasks = useQuery({
    queryKey: queryKeys.tasks(sessionId ?? "", showRewound),
    queryFn: () => api<Task[]>(`/api/sessions/${sessionId}/tasks${showRewound ? "?include_rewound=true" : ""}`),
    enabled: Boolean(sessionId),
    // The server's tasks belong to the session it rendered; a chat created here starts with no cache entry, so it fetches.
    initialData: showRewound || sessionId !== session?.id ? undefined : initialTasks,
    placeholderData: (previous) => previous,
  });
  const sessionQuery = useQuery({
    queryKey: queryKeys.session(sessionId ?? ""),
    queryFn: () => api<{ session: SessionRecord }>(`/api/sessions/${sessionId}?include_events=false`).then((d) => d.session),
    enabled: Boolean(sessionId),
    initialData: session ?? undefined,
  });
  const current = sessionQuery.data;

  const refresh = async (id: string) => {
    const keys = [queryKeys.allTasks(id), queryKeys.session(id), queryKeys.artifacts(id), queryKeys.sessions];
    // A first fetch still running from before the change would answer stale data, and invalidating
    // does not restart a fetch that has no data yet: cancel it, then fetch again.
    await Promise.all(keys.map((queryKey) => queryClient.cancelQueries({ queryKey })));
    await Promise.all(keys.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
  };

  const visible = (tasks.data ?? []).filter((t) => t.id !== streaming?.task?.id);
  const [pageCount, setPageCount] = useState(1);
  const earlier = Math.max(0, visible.length - pageCount * TURNS_PER_PAGE);
  const shown = earlier ? visible.slice(earlier) : visible;
  const mainRef = useRef<HTMLElement>(null);
  const scrollFromBottom = useRef<number | null>(null);
  // Earlier turns appear above what the user is reading, so keep its distance from the bottom.
  useLayoutEffect(() => {
    const main = mainRef.current;
    if (!main || scrollFromBottom.current === null) return;
    main.scrollTop = main.scrollHeight - scrollFromBottom.current;
    scrollFromBottom.current = null;
  });
  const showEarlier = () => {
    if (mainRef.current) scrollFromBottom.current = mainRef.current.scrollHeight - mainRef.current.scrollTop;
    setPageCount((n) => n + 1);
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: the list follows new turns and streamed text
  useEffect(() => {
    bottomRef.current?.scrollIntoView({ block: "end" });
  }, [visible.length, streaming?.partial, streaming?.task?.history?.length]);

  /** Drops the turns from `invocationId` on from the cached list at once; the server stays the authority. */
  const truncateFrom = (id: string, invocationId: string) => {
    queryClient.setQueryData<Task[]>(queryKeys.tasks(id, false), (old) => {
      const index = old?.findIndex((t) => invocationOf(t) === invocationId) ?? -1;
      return index >= 0 ? old!.slice(0, index) : old;
    });
  };

  async function send(message: string, rewindFirst?: { invocationId: string; reason: "edit" | "regenerate" }) {
    const rewindBeforeInvocationId = rewindFirst?.invocationId;
    setStreaming({ task: null, userText: message, partial: "" });
    if (!rewindBeforeInvocationId) setText("");
    let id = sessionId;
    try {
      for await (const event of streamMessage({
        agent,
        text: message,
        contextId: id ?? undefined,
        rewindBeforeInvocationId,
        rewindReason: rewindFirst?.reason,
      })) {
        if (event.kind === "task") {
          if (!id) {
            id = event.contextId;
            setSessionId(id);
            window.history.replaceState(null, "", `/chat/${id}`);
            void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
          }
          setStreaming({ task: event, userText: message, partial: "" });
        } else {
          const update: Message | undefined = event.status.message;
          setStreaming((s) => {
            if (!s?.task) return s;
            if (event.final) return { ...s, task: { ...s.task, status: event.status }, partial: "" };
            if (!update) return s;
            if (update.metadata?.adk_partial) return { ...s, partial: s.partial + messageText(update) };
            const history = [...(s.task.history ?? []), update];
            return { ...s, task: { ...s.task, history }, partial: update.parts.some((p) => p.kind === "text") ? "" : s.partial };
          });
          if (event.final && event.status.state === "failed") {
            toast.error(event.status.message ? messageText(event.status.message) : "The agent failed");
          }
          if (!update?.metadata?.adk_partial && id) {
            void queryClient.invalidateQueries({ queryKey: queryKeys.session(id) });
            void queryClient.invalidateQueries({ queryKey: queryKeys.artifacts(id) });
          }
        }
      }
    } catch (error) {
      toast.error(error instanceof Error ? error.message : String(error));
      if (!rewindBeforeInvocationId) setText((t) => t || message);
    } finally {
      if (id) await refresh(id);
      // A new chat becomes its own route, so later revalidations keep the page mounted; until that
      // page replaces this one the composer stays disabled, or what the user types there would be lost.
      if (id && !sessionId) {
        setLeaving(true);
        router.replace(`/chat/${id}`);
      }
      setStreaming(null);
      composerRef.current?.focus();
    }
  }

  async function stop() {
    const taskId = streaming?.task?.id;
    if (!taskId) return;
    try {
      await cancelTask(agent, taskId);
    } catch (error) {
      toast.error(error instanceof Error ? error.message : String(error));
    }
  }

  async function rewind(invocationId: string, reason: "rewind" | "undo") {
    if (!sessionId || busy) return;
    const before = queryClient.getQueryData<Task[]>(queryKeys.tasks(sessionId, false)) ?? [];
    const index = before.findIndex((t) => invocationOf(t) === invocationId);
    setPending(true);
    truncateFrom(sessionId, invocationId);
    try {
      const result = await unwrapAction(rewindChat({ sessionId, invocationId, reason }));
      return { ...result, count: index >= 0 ? before.length - index : 0 };
    } catch (error) {
      toast.error(error instanceof Error ? error.message : String(error));
      return null;
    } finally {
      await refresh(sessionId);
      setPending(false);
    }
  }

  const actions: TurnActions = {
    async rewind(invocationId, userText) {
      const result = await rewind(invocationId, "rewind");
      if (!result) return;
      setText(userText);
      toast.success(`Rewound ${plural(result.count, "turn")}`, {
        description: "State and files are back to how they were before this message.",
        action: {
          label: "Undo",
          onClick: async () => {
            if (await rewind(result.markerInvocationId, "undo")) {
              setText("");
              toast.success("Rewind undone");
            }
          },
        },
      });
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
        toast.error(error instanceof Error ? error.message : String(error));
        setPending(false);
      }
    },
    editAndResend(invocationId, edited) {
      if (!sessionId || busy) return;
      truncateFrom(sessionId, invocationId);
      void send(edited, { invocationId, reason: "edit" });
    },
    regenerate(invocationId, original) {
      if (!sessionId || busy) return;
      truncateFrom(sessionId, invocationId);
      void send(original, { invocationId, reason: "regenerate" });
    },
  };

  const rewoundGroups = new Set<string>();
  return (
    <div className="flex h-full min-w-0 flex-1">
      <div className="flex min-w-0 flex-1 flex-col">
        <header className="flex items-center gap-3 border-b border-zinc-200 py-2.5 pr-4 pl-12 md:pl-4 dark:border-zinc-800">
          <h1 className="min-w-0 flex-1 truncate text-sm font-semibold">{current?.name ?? "New chat"}</h1>
          {current ? (
            <span className="rounded-full bg-zinc-100 px-2 py-0.5 text-xs text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300">
              {current.agent}
            </span>
          ) : (
            <select
              aria-label="Agent"
              value={agent}
              onChange={(e) => setAgent(e.target.value)}
              className="rounded-md border border-zinc-300 bg-transparent px-2 py-1 text-xs dark:border-zinc-700"
            >
              {agents.map((a) => (
                <option key={a.name} value={a.name}>
                  {a.name}
                </option>
              ))}
            </select>
          )}
          {sessionId && <RewoundToggle checked={showRewound} onChange={setShowRewound} />}
          <Button aria-label="Toggle state panel" className="p-2 lg:hidden" onClick={() => setPanelOpen((o) => !o)}>
            <PanelRight className="size-4" aria-hidden />
          </Button>
        </header>
        {current?.forked_from_session_id && (
          <div className="border-b border-zinc-200 bg-zinc-50 px-4 py-2 text-sm dark:border-zinc-800 dark:bg-zinc-900">
            <GitFork className="mr-1.5 inline size-3.5" aria-hidden />
            {current.forked_from_name ? (
              <Link className="underline underline-offset-2" href={`/chat/${current.forked_from_session_id}`}>
                Forked from {current.forked_from_name}
              </Link>
            ) : (
              <span>Forked from a deleted chat</span>
            )}
          </div>
        )}
        <main ref={mainRef} className="flex-1 overflow-y-auto">
          <div className="mx-auto flex max-w-3xl flex-col gap-6 px-4 py-6">
            {visible.length === 0 && !streaming && (
              <div className="py-16 text-center text-zinc-500">
                <p className="text-lg font-medium text-zinc-800 dark:text-zinc-200">What shall we do?</p>
                <p className="mt-1 text-sm">Try “set color to red”, “save file notes.txt with content hello” or “recap”.</p>
              </div>
            )}
            {earlier > 0 && (
              <Button variant="outline" className="self-center" onClick={showEarlier}>
                Show earlier turns ({earlier})
              </Button>
            )}
            {shown.map((task, i) => {
              const rewound = task.metadata?.rewound === true;
              const group = task.metadata?.rewound_by as string | undefined;
              const divider = rewound && group && !rewoundGroups.has(group);
              if (group) rewoundGroups.add(group);
              return (
                <div key={task.id} className="space-y-6">
                  {divider && (
                    <div data-testid="rewind-divider" className="flex items-center gap-3 text-xs text-zinc-500">
                      <span className="h-px flex-1 bg-zinc-300 dark:bg-zinc-700" />
                      Rewound turns
                      <span className="h-px flex-1 bg-zinc-300 dark:bg-zinc-700" />
                    </div>
                  )}
                  <TurnView
                    sessionId={sessionId!}
                    task={task}
                    rewound={rewound}
                    isLast={!streaming && i === shown.length - 1}
                    disabled={busy}
                    actions={actions}
                  />
                </div>
              );
            })}
            {streaming && (
              <TurnView
                sessionId={sessionId ?? ""}
                task={
                  streaming.task ?? {
                    kind: "task",
                    id: "pending",
                    contextId: "",
                    status: { state: "submitted" },
                    history: [{ kind: "message", messageId: "pending", role: "user", parts: [{ kind: "text", text: streaming.userText }] }],
                  }
                }
                partial={streaming.partial || ((streaming.task?.history?.length ?? 1) <= 1 ? "…" : undefined)}
                isLast={false}
                disabled
              />
            )}
            <div ref={bottomRef} />
          </div>
        </main>
        <div className="px-4 pb-4">
          <Composer
            ref={composerRef}
            value={text}
            onChange={setText}
            onSend={() => void send(text.trim())}
            onStop={() => void stop()}
            streaming={streaming !== null}
            disabled={leaving || !composerReady}
          />
        </div>
      </div>
      <div
        className={cn(
          "w-72 shrink-0 border-l border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-950",
          panelOpen ? "fixed inset-y-0 right-0 z-40 shadow-xl lg:static lg:shadow-none" : "hidden lg:block",
        )}
      >
        <StatePanel sessionId={sessionId} />
      </div>
    </div>
  );
}
