"use client";

import { usePathname } from "next/navigation";
import { useState } from "react";

/** The open state of a drawer or sheet that following a link closes: it is open only on the page where it was opened. */
export function usePageDialog() {
  const [open, setOpen] = usePagePanel<"open">();
  return [open !== null, (next: boolean) => setOpen(next ? "open" : null)] as const;
}

/** Which one of several sheets is open (or none), each closing as `usePageDialog`'s does. */
export function usePagePanel<Panel extends string>() {
  const pathname = usePathname();
  const [openAt, setOpenAt] = useState<{ pathname: string | null; panel: Panel } | null>(null);
  return [
    openAt?.pathname === pathname ? openAt.panel : null,
    (panel: Panel | null) => setOpenAt(panel === null ? null : { pathname, panel }),
  ] as const;
}

/** A sheet or dialog opened from elsewhere (a header button, or a phone's menu): its state, and where focus goes back when it closes. */
export interface OpenedSheet {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** Focuses what opened it (Radix would focus its own trigger, which it has none of). */
  returnFocus: () => void;
}

/** Dialog.Content's `onCloseAutoFocus` for an `OpenedSheet`. */
export const focusOpener = (sheet: OpenedSheet) => (event: Event) => {
  event.preventDefault();
  sheet.returnFocus();
};
