"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useEffectEvent } from "react";
import { queryKeys } from "@/lib/query-keys";
import { useRefreshSession } from "./queries";
import { useShownChatId } from "./use-shown-chat";

/** What changed, as another tab hears it: a chat (its turns, state, versions, name), or only the list of chats. */
interface Change {
  sessionId: string | null;
}

let channel: BroadcastChannel | null | undefined;
/** The same browser's other tabs, where BroadcastChannel exists. */
function tabs(): BroadcastChannel | null {
  channel ??= typeof BroadcastChannel === "undefined" ? null : new BroadcastChannel("retrace:changes");
  return channel;
}

/** Tells this browser's other tabs that a chat (or, with null, the list of chats) changed here. */
export function announce(sessionId: string | null) {
  tabs()?.postMessage({ sessionId } satisfies Change);
}

/**
 * Keeps every tab showing what the chat is: a rewind, fork, switch or turn made in one tab is refetched in
 * the others at once, and the chat on screen is refetched when the tab comes back into view (changes made
 * elsewhere: another browser, an API client). A tab that still sends from an old view is refused by the
 * server (`retrace_last_invocation_id`), never sent into a history its user has not seen.
 */
export function TabSync() {
  const queryClient = useQueryClient();
  const refresh = useRefreshSession();
  const shown = useShownChatId();

  const changed = useEffectEvent(({ sessionId }: Change) => {
    if (sessionId) void refresh(sessionId);
    else void queryClient.invalidateQueries({ queryKey: queryKeys.sessions });
  });
  const backInView = useEffectEvent(() => {
    if (document.visibilityState === "visible" && shown) void refresh(shown);
  });

  useEffect(() => {
    const channel = tabs();
    const onMessage = (e: MessageEvent<Change>) => changed(e.data);
    channel?.addEventListener("message", onMessage);
    document.addEventListener("visibilitychange", backInView);
    return () => {
      channel?.removeEventListener("message", onMessage);
      document.removeEventListener("visibilitychange", backInView);
    };
  }, []);
  return null;
}
