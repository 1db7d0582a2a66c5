"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Copy, MoreHorizontal, Pencil, Trash2 } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { deleteChat, forkChat, renameChat } from "@/lib/api/chat-actions";
import type { SessionSummary } from "@/lib/db/types";
import { queryKeys } from "@/lib/query-keys";
import { cn } from "../../ui/cn";
import { focusOnMount } from "../../ui/focus-on-mount";
import { Menu, MenuItem } from "../../ui/menu";
import { notifyError, notifyUndo } from "../../ui/notify";
import { addChat, removeChat } from "../queries";
import { announce } from "../tab-sync";
import { unwrapAction } from "../unwrap-action";
import { hideChat, unhideChat } from "./pending-deletes";

/** One chat in the sidebar: its link, and Rename, Duplicate and Delete (with Undo). */
export function ChatRow({ session, active }: { session: SessionSummary; active: boolean }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [renaming, setRenaming] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.sessions });

  const rename = useMutation({
    mutationFn: (name: string) => unwrapAction(renameChat({ sessionId: session.id, name })),
    onSuccess: () => {
      void refresh();
      void queryClient.invalidateQueries({ queryKey: queryKeys.session(session.id) });
      announce(session.id);
    },
    onError: notifyError,
  });
  const duplicate = useMutation({
    mutationFn: () => unwrapAction(forkChat({ sessionId: session.id })),
    onSuccess: (fork) => {
      addChat(queryClient, fork);
      void refresh();
      // The source's record lists its forks.
      void queryClient.invalidateQueries({ queryKey: queryKeys.session(session.id) });
      announce(null);
      router.push(`/chat/${fork.id}`);
    },
    onError: notifyError,
  });
  /** Hidden at once, deleted when the Undo offer closes: Undo just shows it again (components/chat/sidebar/pending-deletes.ts). */
  const remove = () => {
    hideChat(session.id);
    if (active) router.push("/");
    notifyUndo({
      title: `Deleted “${session.name}”`,
      description: "Its files go with it; forks of it are kept.",
      onUndo: () => {
        unhideChat(session.id);
        if (active) router.push(`/chat/${session.id}`);
      },
      onClose: async () => {
        try {
          await unwrapAction(deleteChat({ sessionId: session.id }));
          removeChat(queryClient, session.id);
          void refresh();
          announce(null);
        } catch (error) {
          notifyError(error);
        } finally {
          unhideChat(session.id);
        }
      },
    });
  };

  if (renaming) {
    return (
      <input
        aria-label="Chat name"
        ref={focusOnMount}
        defaultValue={session.name}
        className="w-full rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm outline-none dark:border-zinc-700 dark:bg-zinc-900"
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            // Handled here: Escape elsewhere stops a streaming reply.
            e.preventDefault();
            setRenaming(false);
          }
          if (e.key === "Enter") {
            const name = e.currentTarget.value.trim();
            setRenaming(false);
            if (name && name !== session.name) rename.mutate(name);
          }
        }}
        onBlur={() => setRenaming(false)}
      />
    );
  }

  return (
    <div
      className={cn(
        "group flex items-center rounded-md",
        active ? "bg-zinc-200 dark:bg-zinc-800" : "hover:bg-zinc-100 dark:hover:bg-zinc-800/60",
      )}
    >
      <Link
        href={`/chat/${session.id}`}
        title={session.name}
        className="min-w-0 flex-1 truncate px-2 py-1.5 text-sm touch:py-3"
        aria-current={active ? "page" : undefined}
      >
        {rename.isPending ? rename.variables : session.name}
      </Link>
      <Menu
        trigger={
          <button
            type="button"
            aria-label="Chat actions"
            className="mr-1 inline-flex items-center justify-center rounded p-1 text-zinc-500 opacity-0 group-hover:opacity-100 focus-visible:opacity-100 data-[state=open]:opacity-100 touch:size-11 touch:opacity-100"
          >
            <MoreHorizontal className="size-4" aria-hidden />
          </button>
        }
      >
        <MenuItem icon={<Pencil className="size-4" />} onSelect={() => setRenaming(true)}>
          Rename
        </MenuItem>
        <MenuItem icon={<Copy className="size-4" />} disabled={duplicate.isPending} onSelect={() => duplicate.mutate()}>
          Duplicate
        </MenuItem>
        <MenuItem icon={<Trash2 className="size-4" />} danger onSelect={remove}>
          Delete
        </MenuItem>
      </Menu>
    </div>
  );
}
