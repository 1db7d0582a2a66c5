"use client";

import { useEffect, useEffectEvent } from "react";

/** A search hit in the chat already open asks it to bring a turn into view; another chat gets `?turn=` instead. */
const EVENT = "retrace:show-turn";

export function showTurn(sessionId: string, invocationId: string) {
  window.dispatchEvent(new CustomEvent(EVENT, { detail: { sessionId, invocationId } }));
}

export function useShowTurnRequests(sessionId: string | null, onRequest: (invocationId: string) => void) {
  const request = useEffectEvent(onRequest);
  useEffect(() => {
    const listener = (e: Event) => {
      const { detail } = e as CustomEvent<{ sessionId: string; invocationId: string }>;
      if (detail.sessionId === sessionId) request(detail.invocationId);
    };
    window.addEventListener(EVENT, listener);
    return () => window.removeEventListener(EVENT, listener);
  }, [sessionId]);
}
