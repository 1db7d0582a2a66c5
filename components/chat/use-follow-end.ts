"use client";

import type { Virtualizer } from "@tanstack/react-virtual";
import { useEffectEvent, useLayoutEffect, useRef, useState } from "react";

/** Keys that scroll a list towards its start. */
const UP_KEYS = new Set(["ArrowUp", "PageUp", "Home"]);

const distanceFromEnd = (el: HTMLElement) => el.scrollHeight - el.clientHeight - el.scrollTop;

/**
 * Keeps a list at its end while the reader is there: as a reply streams, as a finished turn grows its action
 * row, as rows are measured. The virtualiser alone follows only while each growth stays within its threshold
 * of the end, so several at once (a tool block, then text, then the actions) left the view short of the
 * answer. Following stops when the reader moves up (wheel, touch and keys at once; any other way — scrollbar,
 * find in page, focus — when its scroll lands away from the end) and resumes once they are back within
 * `nearEnd` pixels of it, or call `follow`.
 */
export function useFollowEnd(
  scroller: React.RefObject<HTMLElement | null>,
  virtualizer: Virtualizer<HTMLElement, Element>,
  nearEnd: number,
) {
  const following = useRef(true);
  const [detached, setDetached] = useState(false);
  const lastTop = useRef(0);

  const setFollowing = useEffectEvent((value: boolean) => {
    if (following.current === value) return;
    following.current = value;
    setDetached(!value);
  });

  /** Where a scroll left the list: back near the end follows again; away from it, moving up, stops following. */
  const observe = useEffectEvent((el: HTMLElement) => {
    const up = el.scrollTop < lastTop.current;
    lastTop.current = el.scrollTop;
    if (distanceFromEnd(el) <= nearEnd) setFollowing(true);
    else if (up) setFollowing(false);
  });

  // After every render (a measurement, a new row, a longer reply, a scroll): back to the end while following.
  // The virtualiser re-renders from its own scroll listener, before ours has seen that scroll: observed here too.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    observe(el);
    if (following.current && distanceFromEnd(el) > 1) virtualizer.scrollToEnd();
  });

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    let touchY = 0;
    const leave = () => setFollowing(false);
    const onWheel = (e: WheelEvent) => e.deltaY < 0 && leave();
    const onTouchStart = (e: TouchEvent) => {
      touchY = e.touches[0]?.clientY ?? 0;
    };
    // A finger moving down drags the list towards its start.
    const onTouchMove = (e: TouchEvent) => (e.touches[0]?.clientY ?? 0) > touchY && leave();
    const onKeyDown = (e: KeyboardEvent) => (UP_KEYS.has(e.key) || (e.key === " " && e.shiftKey)) && leave();
    // Scroll events come a frame after layout, so they see where a scroll settled, not a growth half-applied.
    const onScroll = () => observe(el);
    const listeners = [
      ["wheel", onWheel],
      ["touchstart", onTouchStart],
      ["touchmove", onTouchMove],
      ["keydown", onKeyDown],
      ["scroll", onScroll],
    ] as const;
    for (const [type, listener] of listeners) el.addEventListener(type, listener as EventListener, { passive: true });
    return () => {
      for (const [type, listener] of listeners) el.removeEventListener(type, listener as EventListener);
    };
  }, [scroller]);

  return {
    /** The reader has scrolled away from the end: "Jump to latest" shows. */
    detached,
    /** Back to the end, and following again (the reader's own send, "Jump to latest"). */
    follow() {
      following.current = true;
      setDetached(false);
      virtualizer.scrollToEnd();
    },
  };
}
