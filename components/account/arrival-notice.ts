"use client";

import { useEffect } from "react";
import { toast } from "sonner";
import { authErrorMessage } from "@/lib/accounts/client";

/**
 * What brought the person to this page, said once: a single sign-on that failed comes back with
 * `?signin=failed&error=…`, a sign-out with `?signedout`, a deleted account with `?deleted` (the page is a new
 * one, so the message travels in its address, which is then cleaned).
 */
export function useArrivalNotice() {
  useEffect(() => {
    const params = new URLSearchParams(window.location.search);
    if (params.get("signin") === "failed") toast.error(authErrorMessage(params.get("error") ?? undefined));
    else if (params.has("signedout")) toast.success("Signed out. Your chats are in your account; this device starts afresh.");
    else if (params.has("deleted")) toast.success("Your account and all its chats are deleted.");
    else return;
    window.history.replaceState(null, "", window.location.pathname);
  }, []);
}
