"use client";

import { useQueryClient } from "@tanstack/react-query";
import { LogIn } from "lucide-react";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { toast } from "sonner";
import { authClient, authErrorMessage } from "@/lib/accounts/client";
import type { SignInOptions, Viewer } from "@/lib/accounts/viewer";
import { Button } from "../ui/button";
import { AccountMenu } from "./account-menu";
import { useArrivalNotice } from "./arrival-notice";
import { SignInDialog } from "./sign-in-dialog";

/** The foot of the sidebar: "Sign in" for a guest, the account menu once signed in. */
export function AccountArea({ viewer, options }: { viewer: Viewer; options: SignInOptions }) {
  const router = useRouter();
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const why = useId();

  useArrivalNotice();

  async function signedIn(created: boolean) {
    setOpen(false);
    toast.success(created ? "Account created. Your chats are in it now." : "Signed in. Your chats from this device are in your account.");
    await client.invalidateQueries();
    router.refresh();
  }

  async function signOut() {
    const { error } = await authClient.signOut();
    if (error) toast.error(authErrorMessage(error));
    else window.location.assign("/?signedout");
  }

  if (viewer.kind !== "guest") return <AccountMenu viewer={viewer} onSignOut={signOut} />;
  return (
    <>
      <Button variant="outline" className="w-full justify-start touch:py-3" aria-describedby={why} onClick={() => setOpen(true)}>
        <LogIn className="size-4" aria-hidden /> Sign in
      </Button>
      <p id={why} className="px-1 text-xs text-zinc-500">
        Keep your chats and open them on any device.
      </p>
      <SignInDialog open={open} onOpenChange={setOpen} options={options} onSignedIn={signedIn} />
    </>
  );
}
