"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Share2 } from "lucide-react";
import { useState } from "react";
import { api } from "@/lib/api/client";
import type { ShareInfo } from "@/lib/db/shares";
import { Modal } from "../account/modal";
import { Button } from "../ui/button";
import { CopyButton } from "../ui/copy-button";
import { notifyError } from "../ui/notify";
import { timeAgo } from "./turn-rows";

const sharesKey = (sessionId: string) => ["shares", sessionId] as const;

function Option({ label, checked, onChange }: { label: string; checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <label className="flex items-center gap-2 text-sm touch:min-h-11">
      <input
        type="checkbox"
        checked={checked}
        onChange={(e) => onChange(e.target.checked)}
        className="size-4 accent-zinc-900 dark:accent-zinc-100"
      />
      {label}
    </label>
  );
}

/** "Share": a read-only link to the chat as it is now (docs/api.md, "Share links"); the chat's links, each revocable. */
export function ShareDialog({ sessionId, disabled }: { sessionId: string; disabled: boolean }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [includeTools, setIncludeTools] = useState(false);
  const [includeFiles, setIncludeFiles] = useState(false);
  const [created, setCreated] = useState<string | null>(null);
  const shares = useQuery({
    queryKey: sharesKey(sessionId),
    queryFn: () => api<ShareInfo[]>(`/api/sessions/${sessionId}/shares`),
    enabled: open,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: sharesKey(sessionId) });
  const create = useMutation({
    mutationFn: () =>
      api<ShareInfo & { url: string }>(`/api/sessions/${sessionId}/shares`, {
        method: "POST",
        body: JSON.stringify({ include_tools: includeTools, include_files: includeFiles }),
      }),
    onSuccess: (share) => {
      setCreated(share.url);
      void refresh();
    },
    onError: notifyError,
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api(`/api/sessions/${sessionId}/shares/${id}`, { method: "DELETE" }),
    onSuccess: () => {
      setCreated(null);
      void refresh();
    },
    onError: notifyError,
  });
  return (
    <>
      <Button aria-label="Share" className="p-2 touch:size-11 sm:px-2.5" disabled={disabled} onClick={() => setOpen(true)}>
        <Share2 className="size-4" aria-hidden />
        <span className="hidden text-xs sm:inline">Share</span>
      </Button>
      <Modal
        open={open}
        onOpenChange={(next) => {
          setOpen(next);
          if (!next) setCreated(null);
        }}
        title="Share this version"
        description="Anyone with the link can read the chat as it is now: only the turns on screen, never rewound turns or other versions. Later messages are not shared."
      >
        <div className="mt-4 flex flex-col gap-1">
          <Option label="Include tool calls" checked={includeTools} onChange={setIncludeTools} />
          <Option label="Include files" checked={includeFiles} onChange={setIncludeFiles} />
        </div>
        {created ? (
          <div className="mt-4 flex items-center gap-2">
            <input
              aria-label="Share link"
              readOnly
              value={created}
              onFocus={(e) => e.currentTarget.select()}
              className="min-w-0 flex-1 rounded-md border border-zinc-300 bg-zinc-50 px-2 py-1.5 font-mono text-xs dark:border-zinc-700 dark:bg-zinc-950"
            />
            <CopyButton
              text={() => created}
              label="Copy link"
              showLabel
              className="rounded-md border border-zinc-300 px-2 py-1.5 text-xs touch:min-h-11 dark:border-zinc-700"
            />
          </div>
        ) : (
          <Button variant="primary" className="mt-4 self-start touch:min-h-11" disabled={create.isPending} onClick={() => create.mutate()}>
            Create link
          </Button>
        )}
        {(shares.data?.length ?? 0) > 0 && (
          <section aria-label="Links to this chat" className="mt-5 border-t border-zinc-200 pt-3 dark:border-zinc-800">
            <h3 className="text-sm font-medium">Links to this chat</h3>
            <ul className="mt-2 space-y-2">
              {shares.data?.map((share) => (
                <li key={share.id} data-testid="share-link" className="flex items-center gap-2 text-sm">
                  <span className="min-w-0 flex-1 truncate text-zinc-600 dark:text-zinc-400">
                    Created {timeAgo(share.created_at)}
                    {share.include_tools ? " · tool calls" : ""}
                    {share.include_files ? " · files" : ""}
                  </span>
                  <Button
                    variant="outline"
                    className="shrink-0 px-2 py-1 text-xs touch:min-h-11"
                    disabled={revoke.isPending}
                    onClick={() => revoke.mutate(share.id)}
                  >
                    Revoke
                  </Button>
                </li>
              ))}
            </ul>
          </section>
        )}
      </Modal>
    </>
  );
}
