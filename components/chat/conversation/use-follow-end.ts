"use client";

import type { Virtualizer } from "@tanstack/react-virtual";
import { useEffectEvent, useLayoutEffect, useRef, useState } from "react";

/** Keys that scroll a list towards its start, and towards its end. */
const UP_KEYS = new Set(["ArrowUp", "PageUp", "Home"]);
const DOWN_KEYS = new Set(["ArrowDown", "PageDown", "End"]);

const distanceFromEnd = (el: HTMLElement) => el.scrollHeight - el.clientHeight - el.scrollTop;

/**
 * Keeps a list at its end while the reader is there: as a reply streams, as a finished turn grows its action
 * row, as rows are measured. The virtualiser alone follows only while each growth stays within its threshold
 * of the end, so several at once (a tool block, then text, then the actions) left the view short of the
 * answer. Any move up stops following (wheel, touch and keys at once, however small; any other way —
 * scrollbar, find in page, focus — once its scroll lands away from the end), and the virtualiser's own pull to
 * the end with it: its `scrollEndThreshold` (`nearEnd` while following) is 0 while the reader is away. Following
 * resumes when the reader's own move down (wheel, finger, keys, the scrollbar) reaches within `nearEnd`
 * pixels of the end, or on `follow` ("Jump to latest", their own send).
 */
export function useFollowEnd(
  scroller: React.RefObject<HTMLElement | null>,
  virtualizer: Virtualizer<HTMLElement, Element>,
  nearEnd: number,
) {
  const following = useRef(true);
  const [detached, setDetached] = useState(false);
  const lastTop = useRef(0);
  const lastHeight = useRef(0);
  /** The reader's last move was towards the end: only such a move that reaches it follows again. */
  const movingDown = useRef(false);
  /** What took the list away from its end, when it is away. */
  const leftBy = useRef<"reader" | "scroll">("scroll");

  /** The virtualiser's threshold as following says: set at once, and again after each render (which resets it). */
  const holdThreshold = () => {
    const threshold = following.current ? nearEnd : 0;
    if (virtualizer.options.scrollEndThreshold !== threshold)
      virtualizer.setOptions({ ...virtualizer.options, scrollEndThreshold: threshold });
  };

  const setFollowing = useEffectEvent((value: boolean) => {
    if (following.current === value) return;
    following.current = value;
    // Not at the next render: a growth measured before it would pull the view back to the end.
    holdThreshold();
    setDetached(!value);
  });

  /** Where a scroll left the list: the reader's move down to the end follows again; a move up away from it stops. */
  const observe = useEffectEvent((el: HTMLElement) => {
    const moved = el.scrollTop - lastTop.current;
    // A list that got shorter (a streamed reply replaced by its final rendering, a row measured smaller) moves
    // its scroll up by itself: no reader did that.
    const shrank = el.scrollHeight < lastHeight.current;
    lastTop.current = el.scrollTop;
    lastHeight.current = el.scrollHeight;
    const near = distanceFromEnd(el) <= nearEnd;
    // Left by a scroll no input of the reader's explains (the scrollbar, find in page, focus, the layout): back at
    // the end, it follows again. Left by the reader's own move up: only their move down to the end does.
    if (near && (leftBy.current === "scroll" || (moved > 0 && movingDown.current))) setFollowing(true);
    else if (!near && moved < 0 && !shrank) {
      if (following.current) leftBy.current = "scroll";
      setFollowing(false);
    }
  });

  // After every render (a measurement, a new row, a longer reply, a scroll): back to the end while following.
  // The virtualiser re-renders from its own scroll listener, before ours has seen that scroll: observed here too.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    holdThreshold();
    observe(el);
    if (following.current && distanceFromEnd(el) > 1) virtualizer.scrollToEnd();
  });

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    let touchY = 0;
    const move = (down: boolean) => {
      movingDown.current = down;
      if (down) return;
      leftBy.current = "reader";
      setFollowing(false);
    };
    const onWheel = (e: WheelEvent) => e.deltaY !== 0 && move(e.deltaY > 0);
    const onTouchStart = (e: TouchEvent) => {
      touchY = e.touches[0]?.clientY ?? 0;
    };
    // A finger moving down drags the list towards its start; any such move, however slow, counts.
    const onTouchMove = (e: TouchEvent) => {
      const y = e.touches[0]?.clientY ?? touchY;
      if (y !== touchY) move(y < touchY);
      touchY = y;
    };
    const onKeyDown = (e: KeyboardEvent) => {
      if (UP_KEYS.has(e.key) || (e.key === " " && e.shiftKey)) move(false);
      else if (DOWN_KEYS.has(e.key) || e.key === " ") move(true);
    };
    // A press on the scrollbar: where the scroll lands says which way it went.
    const onPointerDown = (e: PointerEvent) => {
      if (e.pointerType === "mouse" && e.offsetX >= el.clientWidth) movingDown.current = true;
    };
    // Scroll events come a frame after layout, so they see where a scroll settled, not a growth half-applied.
    const onScroll = () => observe(el);
    const listeners = [
      ["wheel", onWheel],
      ["touchstart", onTouchStart],
      ["touchmove", onTouchMove],
      ["keydown", onKeyDown],
      ["pointerdown", onPointerDown],
      ["scroll", onScroll],
    ] as const;
    for (const [type, listener] of listeners) el.addEventListener(type, listener as EventListener, { passive: true });
    return () => {
      for (const [type, listener] of listeners) el.removeEventListener(type, listener as EventListener);
    };
  }, [scroller]);

  return {
    /** The reader has moved away from the end: "Jump to latest" shows, and the list keeps its place. */
    detached,
    /** Back to the end, and following again (the reader's own send, "Jump to latest"). */
    follow() {
      following.current = true;
      holdThreshold();
      setDetached(false);
      virtualizer.scrollToEnd();
    },
  };
}
