"use client";

import { usePathname } from "next/navigation";
import { useState } from "react";

/** The open state of a drawer or sheet that following a link closes: it is open only on the page where it was opened. */
export function usePageDialog() {
  const pathname = usePathname();
  const [openAt, setOpenAt] = useState<string | null>(null);
  return [openAt === pathname, (next: boolean) => setOpenAt(next ? pathname : null)] as const;
}
