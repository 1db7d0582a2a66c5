"use client";

import { useEffect, useRef } from "react";
import { messageText } from "@/lib/task/convert";
import { speak } from "../../ui/announcer";
import { replyText } from "../turn/agent-parts";
import type { LiveTurn } from "./use-live-turn";

/** Markdown's marks, which a screen reader would read out ("star star"): links keep their text. */
const plain = (markdown: string) =>
  markdown
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\*\*|__|~~|`/g, "")
    .replace(/^\s*(#+|>|[-+]|\d+\.)\s+/gm, "");

/** What a screen reader hears when a reply ends: who replied and what, or that it stopped or failed. */
function ended(live: LiveTurn): string {
  const [, ...agent] = live.task?.history ?? [];
  const author = (live.task?.metadata?.kagent_agent as string | undefined) ?? "The agent";
  const text = plain([replyText(agent), live.partial].filter(Boolean).join("\n\n"));
  if (live.task?.status.state === "failed") {
    const why = live.task.status.message ? messageText(live.task.status.message) : "";
    return `${author} failed. ${why}`.trim();
  }
  if (live.stopped) return `Stopped. ${author} had said: ${text}`;
  return `${author} replied: ${text}`;
}

/**
 * Tells a screen reader about the streamed reply: once that the agent is replying, then the whole reply when
 * it ends. Read out token by token, the stream would be noise.
 */
export function useAnnounceReplies(live: LiveTurn | null) {
  const last = useRef<LiveTurn | null>(null);
  useEffect(() => {
    if (live && !last.current) speak("The agent is replying…");
    if (!live && last.current) speak(ended(last.current));
    last.current = live;
  }, [live]);
}
