"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "@/lib/api/client";
import type { ShareInfo } from "@/lib/db/types";
import { Modal } from "../../account/modal";
import { Button } from "../../ui/button";
import { CopyButton } from "../../ui/copy-button";
import { notifyError, notifySuccess } from "../../ui/notify";
import type { OpenedSheet } from "../../ui/use-page-dialog";
import { timeAgo } from "../turn/turn-rows";

const sharesKey = (sessionId: string) => ["shares", sessionId] as const;

function Option({
  label,
  checked,
  onChange,
  disabled,
}: {
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled: boolean;
}) {
  return (
    <label className="flex items-center gap-2 text-sm touch:min-h-11 has-disabled:text-zinc-500">
      <input
        type="checkbox"
        checked={checked}
        disabled={disabled}
        onChange={(e) => onChange(e.target.checked)}
        className="size-4 accent-zinc-900 dark:accent-zinc-100"
      />
      {label}
    </label>
  );
}

/** What a link shares besides the turns on screen, in words. */
const sharedParts = (share: Pick<ShareInfo, "include_tools" | "include_files">) =>
  `${share.include_tools ? " · tool calls" : ""}${share.include_files ? " · files" : ""}`;

/** Revoking asks first: the link stops working for everyone holding it, and cannot be brought back. */
function RevokeConfirm({ share, onRevoke, onCancel }: { share: ShareInfo | null; onRevoke: (id: string) => void; onCancel: () => void }) {
  return (
    <Modal
      open={share !== null}
      onOpenChange={(open) => !open && onCancel()}
      title="Revoke this link?"
      description="Anyone who opens it will see “Link not found”. This cannot be undone: to share again, you make a new link."
    >
      <div className="mt-4 flex justify-end gap-2">
        <Button variant="outline" className="touch:min-h-11" onClick={onCancel}>
          Keep link
        </Button>
        <Button variant="danger" className="touch:min-h-11" onClick={() => share && onRevoke(share.id)}>
          Revoke link
        </Button>
      </div>
    </Modal>
  );
}

/**
 * "Share": a read-only link to the chat as it is now (docs/api.md, "Share links"); the chat's links, each
 * revocable after a confirmation. A link's options are its own: once made they show read-only, and other
 * options take another link.
 */
export function ShareDialog({ sessionId, sheet }: { sessionId: string; sheet: OpenedSheet }) {
  const queryClient = useQueryClient();
  const [includeTools, setIncludeTools] = useState(false);
  const [includeFiles, setIncludeFiles] = useState(false);
  const [created, setCreated] = useState<(ShareInfo & { url: string }) | null>(null);
  const [revoking, setRevoking] = useState<ShareInfo | null>(null);
  const shares = useQuery({
    queryKey: sharesKey(sessionId),
    queryFn: () => api<ShareInfo[]>(`/api/sessions/${sessionId}/shares`),
    enabled: sheet.open,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: sharesKey(sessionId) });
  const create = useMutation({
    mutationFn: () =>
      api<ShareInfo & { url: string }>(`/api/sessions/${sessionId}/shares`, {
        method: "POST",
        body: JSON.stringify({ include_tools: includeTools, include_files: includeFiles }),
      }),
    onSuccess: (share) => {
      setCreated(share);
      void refresh();
    },
    onError: notifyError,
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api(`/api/sessions/${sessionId}/shares/${id}`, { method: "DELETE" }),
    onSuccess: (_, id) => {
      if (created?.id === id) setCreated(null);
      setRevoking(null);
      notifySuccess("Link revoked");
      void refresh();
    },
    onError: notifyError,
  });
  return (
    <Modal
      open={sheet.open}
      onOpenChange={(next) => {
        sheet.onOpenChange(next);
        if (!next) setCreated(null);
      }}
      returnFocus={sheet.returnFocus}
      title="Share this version"
      description="Anyone with the link can read the chat as it is now: only the turns on screen, never rewound turns or other versions. Later messages are not shared."
    >
      <fieldset className="mt-4 flex flex-col gap-1">
        <legend className="sr-only">What the link shares</legend>
        <Option
          label="Include tool calls"
          checked={created?.include_tools ?? includeTools}
          onChange={setIncludeTools}
          disabled={!!created}
        />
        <Option label="Include files" checked={created?.include_files ?? includeFiles} onChange={setIncludeFiles} disabled={!!created} />
      </fieldset>
      {created ? (
        <>
          <div className="mt-4 flex items-center gap-2">
            <input
              aria-label="Share link"
              readOnly
              value={created.url}
              onFocus={(e) => e.currentTarget.select()}
              className="min-w-0 flex-1 rounded-md border border-zinc-300 bg-zinc-50 px-2 py-1.5 font-mono text-xs dark:border-zinc-700 dark:bg-zinc-950"
            />
            <CopyButton
              text={() => created.url}
              label="Copy link"
              showLabel
              className="rounded-md border border-zinc-300 px-2 py-1.5 text-xs touch:min-h-11 dark:border-zinc-700"
            />
          </div>
          <p className="mt-2 text-xs text-zinc-600 dark:text-zinc-400">
            A link keeps the options it was made with. To share with others, make another link.{" "}
            <button
              type="button"
              className="font-medium underline underline-offset-2 touch:inline-flex touch:min-h-11 touch:items-center"
              onClick={() => setCreated(null)}
            >
              Make another link
            </button>
          </p>
        </>
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
                  {sharedParts(share)}
                </span>
                <Button
                  variant="outline"
                  className="shrink-0 px-2 py-1 text-xs touch:min-h-11"
                  disabled={revoke.isPending}
                  onClick={() => setRevoking(share)}
                >
                  Revoke
                </Button>
              </li>
            ))}
          </ul>
        </section>
      )}
      <RevokeConfirm share={revoking} onRevoke={(id) => revoke.mutate(id)} onCancel={() => setRevoking(null)} />
    </Modal>
  );
}
