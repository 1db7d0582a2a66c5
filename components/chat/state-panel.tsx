"use client";

import { useQuery } from "@tanstack/react-query";
import { FileText, GitFork } from "lucide-react";
import Link from "next/link";
import { api } from "@/lib/api/client";
import type { ArtifactInfo, SessionRecord } from "@/lib/db/types";
import { queryKeys } from "@/lib/query-keys";

function show(value: unknown) {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

/** The session's current state, files and forks: the effect of a rewind or fork at a glance. */
export function StatePanel({ sessionId }: { sessionId: string | null }) {
  const session = useQuery({
    queryKey: queryKeys.session(sessionId ?? ""),
    queryFn: () => api<{ session: SessionRecord }>(`/api/sessions/${sessionId}?include_events=false`).then((d) => d.session),
    enabled: Boolean(sessionId),
  });
  const artifacts = useQuery({
    queryKey: queryKeys.artifacts(sessionId ?? ""),
    queryFn: () => api<ArtifactInfo[]>(`/api/sessions/${sessionId}/artifacts`),
    enabled: Boolean(sessionId),
  });
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
                  className="flex items-center gap-1.5 rounded-md px-1 py-0.5 hover:bg-zinc-100 dark:hover:bg-zinc-800"
                  href={`/api/sessions/${sessionId}/artifacts/${encodeURIComponent(f.filename)}`}
                  target="_blank"
                  rel="noopener noreferrer"
                >
                  <FileText className="size-3.5 shrink-0" aria-hidden />
                  <span className="truncate">{f.filename}</span>
                  <span className="ml-auto text-xs text-zinc-500">v{f.version}</span>
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
                  className="flex items-center gap-1.5 rounded-md px-1 py-0.5 hover:bg-zinc-100 dark:hover:bg-zinc-800"
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
