"use client";

import { Menu as MenuIcon } from "lucide-react";
import { Dialog } from "radix-ui";
import type { ApiPage } from "@/lib/api/client";
import type { SessionSummary } from "@/lib/db/types";
import { usePageDialog } from "../../ui/use-page-dialog";
import { type AccountProps, Sidebar } from "./sidebar";

/** The sidebar beside the chat on wide screens; on phones, a drawer behind an "Open chats" button. */
export function SidebarShell({ initialSessions, account }: { initialSessions: ApiPage<SessionSummary>; account: AccountProps }) {
  const [open, setOpen] = usePageDialog();
  return (
    <>
      <div className="hidden w-64 shrink-0 border-r border-zinc-200 bg-zinc-50 md:block dark:border-zinc-800 dark:bg-zinc-900/40">
        <Sidebar initialSessions={initialSessions} account={account} />
      </div>
      <Dialog.Root open={open} onOpenChange={setOpen}>
        <Dialog.Trigger
          aria-label="Open chats"
          className="fixed top-1.5 left-2 z-30 inline-flex items-center justify-center rounded-md p-2 touch:top-2 touch:left-1 touch:size-11 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-blue-500 md:hidden dark:hover:bg-zinc-800"
        >
          <MenuIcon className="size-4" aria-hidden />
        </Dialog.Trigger>
        <Dialog.Portal>
          <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40 md:hidden" />
          <Dialog.Content className="fixed inset-y-0 left-0 z-50 w-72 max-w-[85vw] bg-zinc-50 shadow-xl md:hidden dark:bg-zinc-900">
            <Dialog.Title className="sr-only">Chats</Dialog.Title>
            <Dialog.Description className="sr-only">Your chats, newest first.</Dialog.Description>
            <Sidebar initialSessions={initialSessions} account={account} onNavigate={() => setOpen(false)} />
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>
    </>
  );
}
