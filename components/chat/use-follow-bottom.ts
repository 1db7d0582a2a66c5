"use client";

import { type RefObject, useCallback, useEffect, useRef, useState } from "react";

/** Within this many pixels of the bottom counts as "at the bottom". */
const NEAR_BOTTOM = 24;

/**
 * Keeps a scroller pinned to the bottom while its content grows, but only while the reader is there:
 * scrolling up stops following (and `following` turns false, for a "Jump to latest" button); coming back
 * to the bottom, or `jumpToLatest`, follows again. Content growth is watched, not guessed from renders.
 */
export function useFollowBottom(scroller: RefObject<HTMLElement | null>, content: RefObject<HTMLElement | null>) {
  const [following, setFollowingState] = useState(true);
  const followingRef = useRef(true);
  const setFollowing = useCallback((value: boolean) => {
    followingRef.current = value;
    setFollowingState(value);
  }, []);

  useEffect(() => {
    const element = scroller.current;
    const inner = content.current;
    if (!element || !inner) return;
    let lastTop = element.scrollTop;
    const onScroll = () => {
      const distance = element.scrollHeight - element.scrollTop - element.clientHeight;
      if (distance <= NEAR_BOTTOM) setFollowing(true);
      else if (element.scrollTop < lastTop) setFollowing(false);
      lastTop = element.scrollTop;
    };
    const observer = new ResizeObserver(() => {
      if (followingRef.current) element.scrollTop = element.scrollHeight;
    });
    element.scrollTop = element.scrollHeight;
    element.addEventListener("scroll", onScroll, { passive: true });
    observer.observe(inner);
    return () => {
      element.removeEventListener("scroll", onScroll);
      observer.disconnect();
    };
  }, [scroller, content, setFollowing]);

  const jumpToLatest = useCallback(() => {
    setFollowing(true);
    const element = scroller.current;
    if (element) element.scrollTop = element.scrollHeight;
  }, [scroller, setFollowing]);

  return { following, jumpToLatest };
}
