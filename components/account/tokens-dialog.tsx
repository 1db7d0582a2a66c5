"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "@/lib/api/client";
import type { ApiToken } from "@/lib/db/types";
import { queryKeys } from "@/lib/query-keys";
import { Button } from "../ui/button";
import { CopyButton } from "../ui/copy-button";
import { readableError } from "../ui/readable-error";
import { Field, FormError, Modal } from "./modal";

const date = (iso: string | null) => (iso ? new Date(iso).toLocaleDateString() : "never");

/** How long a new token works: `expires_in_days` (docs/api.md, "Personal API tokens"); none never expires. */
const LIFETIMES = [
  { days: 30, label: "30 days" },
  { days: 90, label: "90 days" },
  { days: 365, label: "1 year" },
  { days: null, label: "Never" },
] as const;

/** A first request with the token, to paste into a terminal. */
const curlExample = (token: string) => `curl -H "Authorization: Bearer ${token}" ${window.location.origin}/api/sessions`;

/** Personal API tokens: create one (shown once), see when each was last used, revoke. */
export function TokensDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const client = useQueryClient();
  const tokens = useQuery({ queryKey: queryKeys.tokens, queryFn: () => api<ApiToken[]>("/api/account/tokens") });
  const [name, setName] = useState("");
  const [lifetime, setLifetime] = useState<number | null>(LIFETIMES[1].days);
  const [created, setCreated] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  async function act(run: () => Promise<void>) {
    setError(null);
    try {
      await run();
    } catch (caught) {
      setError(readableError(caught));
    }
    await client.invalidateQueries({ queryKey: queryKeys.tokens });
  }
  const create = () =>
    act(async () => {
      const token = await api<ApiToken & { token: string }>("/api/account/tokens", {
        method: "POST",
        body: JSON.stringify({ name, ...(lifetime ? { expires_in_days: lifetime } : {}) }),
      });
      setCreated(token.token);
      setName("");
    });
  return (
    <Modal
      open={open}
      onOpenChange={onOpenChange}
      title="API tokens"
      description="Send a token as Authorization: Bearer <token> to the REST and A2A API. It acts as you."
    >
      <form
        className="mt-4 flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          void create();
        }}
      >
        <div className="min-w-40 flex-1">
          <Field label="Token name" value={name} onChange={setName} autoComplete="off" />
        </div>
        <label className="flex flex-col gap-1 text-sm font-medium">
          Expires
          <select
            value={lifetime ?? "never"}
            onChange={(e) => setLifetime(e.target.value === "never" ? null : Number(e.target.value))}
            className="rounded-md border border-zinc-300 bg-white px-2 py-2 text-sm font-normal touch:py-3 dark:border-zinc-700 dark:bg-zinc-950"
          >
            {LIFETIMES.map((l) => (
              <option key={l.label} value={l.days ?? "never"}>
                {l.label}
              </option>
            ))}
          </select>
        </label>
        <Button type="submit" variant="primary" className="touch:py-3" disabled={!name.trim()}>
          Create token
        </Button>
      </form>
      {created && (
        <div
          role="status"
          className="mt-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-700 dark:bg-amber-950/40"
        >
          <p className="font-medium">Copy your new token now: it won't be shown again.</p>
          <div className="mt-2 flex items-center gap-2">
            <code data-testid="new-token" className="min-w-0 flex-1 truncate rounded bg-white px-2 py-1 font-mono text-xs dark:bg-zinc-950">
              {created}
            </code>
            <CopyButton text={() => created} label="Copy token" className="rounded p-2 hover:bg-amber-100 dark:hover:bg-amber-900" />
          </div>
          <p className="mt-3 text-xs text-zinc-600 dark:text-zinc-400">Try it: your chats, as JSON.</p>
          <div className="mt-1 flex items-start gap-2">
            <code
              data-testid="token-example"
              className="min-w-0 flex-1 rounded bg-white px-2 py-1 font-mono text-xs break-all dark:bg-zinc-950"
            >
              {curlExample(created)}
            </code>
            <CopyButton
              text={() => curlExample(created)}
              label="Copy command"
              className="rounded p-2 hover:bg-amber-100 dark:hover:bg-amber-900"
            />
          </div>
        </div>
      )}
      <FormError message={error} />
      <ul aria-label="Your API tokens" className="mt-3 flex flex-col divide-y divide-zinc-200 dark:divide-zinc-800">
        {tokens.data?.length === 0 && <li className="py-2 text-sm text-zinc-500">No tokens yet.</li>}
        {tokens.data?.map((token) => (
          <li key={token.id} className="flex items-center justify-between gap-3 py-2">
            <div className="min-w-0">
              <p className="truncate text-sm font-medium">{token.name}</p>
              <p className="text-xs break-words text-zinc-500">
                <span className="font-mono">{token.prefix}…</span> · created {date(token.created_at)} · last used {date(token.last_used_at)}{" "}
                · {token.expires_at ? `expires ${date(token.expires_at)}` : "never expires"}
              </p>
            </div>
            <Button
              variant="outline"
              aria-label={`Revoke ${token.name}`}
              onClick={() => act(() => api(`/api/account/tokens/${token.id}`, { method: "DELETE" }))}
            >
              Revoke
            </Button>
          </li>
        ))}
      </ul>
    </Modal>
  );
}
