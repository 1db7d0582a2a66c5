"use client";

import { FileText, GitFork } from "lucide-react";
import Link from "next/link";
import { Dialog } from "radix-ui";
import type { ArtifactInfo } from "@/lib/db/types";
import { SheetHeader } from "../../ui/sheet-header";
import { focusOpener, type OpenedSheet } from "../../ui/use-page-dialog";
import { useArtifactsQuery, useSessionQuery } from "../queries";

function show(value: unknown) {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

/** The version the user saw (a rewind's copy of v0 is still v0, as the chip in the chat says), marked "restored". */
function FileVersion({ file }: { file: ArtifactInfo }) {
  return (
    <span className="ml-auto shrink-0 text-xs text-zinc-500">
      v{file.restored_from ?? file.version}
      {file.restored_from !== null && " · restored"}
    </span>
  );
}

/** The session's current state, files and forks: the effect of a rewind or fork at a glance. */
export function StatePanel({ sessionId }: { sessionId: string | null }) {
  const session = useSessionQuery(sessionId);
  const artifacts = useArtifactsQuery(sessionId);
  const entries = Object.entries(session.data?.state ?? {});
  const files = artifacts.data ?? [];
  const forks = session.data?.forks ?? [];

  return (
    <section aria-label="Session state" className="flex h-full flex-col gap-5 overflow-y-auto p-4 text-sm">
      <div>
        <h2 className="mb-2 text-xs font-semibold tracking-wide text-zinc-500 uppercase">State</h2>
        {entries.length === 0 ? (
          <p className="text-zinc-500">No state yet.</p>
        ) : (
          <dl className="space-y-1.5">
            {entries.map(([key, value]) => (
              <div key={key} data-testid={`state-${key}`} className="rounded-md bg-zinc-50 px-2 py-1.5 dark:bg-zinc-900">
                <dt className="font-mono text-xs text-zinc-500">{key}</dt>
                <dd className="font-mono text-[13px] break-words whitespace-pre-wrap">{show(value)}</dd>
              </div>
            ))}
          </dl>
        )}
      </div>
      <div>
        <h2 className="mb-2 text-xs font-semibold tracking-wide text-zinc-500 uppercase">Files</h2>
        {files.length === 0 ? (
          <p className="text-zinc-500">No files yet.</p>
        ) : (
          <ul className="space-y-1">
            {files.map((f) => (
              <li key={f.filename}>
                <a
                  className="flex items-center gap-1.5 rounded-md px-1 py-0.5 hover:bg-zinc-100 touch:min-h-11 dark:hover:bg-zinc-800"
                  href={`/api/sessions/${sessionId}/artifacts/${encodeURIComponent(f.filename)}`}
                  target="_blank"
                  rel="noopener noreferrer"
                >
                  <FileText className="size-3.5 shrink-0" aria-hidden />
                  <span className="truncate">{f.filename}</span>
                  <FileVersion file={f} />
                </a>
              </li>
            ))}
          </ul>
        )}
      </div>
      {forks.length > 0 && (
        <div>
          <h2 className="mb-2 text-xs font-semibold tracking-wide text-zinc-500 uppercase">Forks</h2>
          <ul className="space-y-1">
            {forks.map((f) => (
              <li key={f.id}>
                <Link
                  href={`/chat/${f.id}`}
                  className="flex items-center gap-1.5 rounded-md px-1 py-0.5 hover:bg-zinc-100 touch:min-h-11 dark:hover:bg-zinc-800"
                >
                  <GitFork className="size-3.5 shrink-0" aria-hidden />
                  <span className="truncate">{f.name}</span>
                </Link>
              </li>
            ))}
          </ul>
        </div>
      )}
      <p className="mt-auto text-xs text-zinc-500">
        Rewind restores session keys and files. <code>app:</code> and <code>user:</code> keys and <code>user:</code> files are shared across
        chats and are not restored.
      </p>
    </section>
  );
}

/** On narrower screens the panel is a sheet: Close button, backdrop, tap outside, Escape, focus kept inside. */
export function StatePanelSheet({ sessionId, sheet }: { sessionId: string | null; sheet: OpenedSheet }) {
  return (
    <Dialog.Root open={sheet.open} onOpenChange={sheet.onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay data-testid="sheet-backdrop" className="fixed inset-0 z-40 bg-black/40 lg:hidden" />
        <Dialog.Content
          onCloseAutoFocus={focusOpener(sheet)}
          className="fixed inset-y-0 right-0 z-50 flex w-80 max-w-[85vw] flex-col bg-white shadow-xl lg:hidden dark:bg-zinc-950"
        >
          <SheetHeader title="State and files" />
          <Dialog.Description className="sr-only">This chat's state, files and forks.</Dialog.Description>
          <div className="min-h-0 flex-1">
            <StatePanel sessionId={sessionId} />
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
