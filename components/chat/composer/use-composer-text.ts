"use client";

import { type RefObject, useEffect, useLayoutEffect, useState } from "react";

interface Typed {
  text: string;
  selection: [start: number, end: number];
}

/** What is typed in chats started at `/`, by chat id, until the chat's own page takes it. */
const typedInNewChats = new Map<string, Typed>();

/**
 * The composer's text. A chat started at `/` becomes its own page (`/chat/<id>`) once it has an id, and that
 * page's Chat replaces the one the user is typing in: from the moment the chat has its id, every change is
 * kept here too, and the chat's page starts from it, caret included, so nothing typed while the pages swap
 * is lost.
 */
export function useComposerText(
  sessionId: string | null,
  { startedHere, draft, composer }: { startedHere: boolean; draft?: string; composer: RefObject<HTMLTextAreaElement | null> },
) {
  const [text, setText] = useState(() => (sessionId ? typedInNewChats.get(sessionId)?.text : undefined) ?? draft ?? "");

  useEffect(() => {
    if (!startedHere || !sessionId) return;
    const box = composer.current;
    typedInNewChats.set(sessionId, { text, selection: box ? [box.selectionStart, box.selectionEnd] : [text.length, text.length] });
  }, [startedHere, sessionId, text, composer]);

  // Taken over before the first paint, as the other page last left it: keys may have come in after this one began
  // rendering. The box gets the text before the state does, so React leaves the caret where it is put.
  useLayoutEffect(() => {
    const typed = !startedHere && sessionId ? typedInNewChats.get(sessionId) : undefined;
    const box = composer.current;
    if (!typed || !sessionId || !box) return;
    typedInNewChats.delete(sessionId);
    box.value = typed.text;
    box.setSelectionRange(...typed.selection);
    setText(typed.text);
  }, [startedHere, sessionId, composer]);

  return [text, setText] as const;
}
