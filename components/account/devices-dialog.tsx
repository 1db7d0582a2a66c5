"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Fingerprint } from "lucide-react";
import { useState } from "react";
import { authClient, authErrorMessage } from "@/lib/accounts/client";
import { queryKeys } from "@/lib/query-keys";
import { Button } from "../ui/button";
import { FormError, Modal } from "./modal";

interface Device {
  token: string;
  userAgent?: string | null;
  ipAddress?: string | null;
  createdAt: string | Date;
  updatedAt: string | Date;
}

interface Passkey {
  id: string;
  name?: string | null;
  createdAt?: string | Date | null;
}

/** "Chrome on Linux" from a user agent; good enough to tell one's own devices apart. */
function deviceName(userAgent: string | null | undefined): string {
  const ua = userAgent ?? "";
  const browser = /Edg\//.test(ua)
    ? "Edge"
    : /Firefox\//.test(ua)
      ? "Firefox"
      : /Chrom(e|ium)\//.test(ua)
        ? "Chrome"
        : /Safari\//.test(ua)
          ? "Safari"
          : null;
  const os = /Android/.test(ua)
    ? "Android"
    : /iPhone|iPad/.test(ua)
      ? "iOS"
      : /Mac OS X/.test(ua)
        ? "macOS"
        : /Windows/.test(ua)
          ? "Windows"
          : /Linux/.test(ua)
            ? "Linux"
            : null;
  if (browser && os) return `${browser} on ${os}`;
  return browser ?? os ?? "Unknown device";
}

const when = (date: string | Date | null | undefined) => (date ? new Date(date).toLocaleString() : "");

async function unwrap<T>(result: Promise<{ data: T | null; error: unknown }>): Promise<T> {
  const { data, error } = await result;
  if (error) throw new Error(authErrorMessage(error as { message?: string }));
  return data as T;
}

/** Where the account is signed in (sign any of them out, or all but this one) and its passkeys (add, remove). */
export function DevicesDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const client = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const devices = useQuery({
    queryKey: queryKeys.devices,
    queryFn: async () => {
      const [list, current] = await Promise.all([unwrap<Device[]>(authClient.listSessions()), unwrap(authClient.getSession())]);
      return { list, current: current?.session.token ?? null };
    },
  });
  const passkeys = useQuery({
    queryKey: queryKeys.passkeys,
    queryFn: () => unwrap<Passkey[]>(authClient.$fetch("/passkey/list-user-passkeys", { method: "GET" })),
  });
  async function act(run: () => Promise<unknown>) {
    setError(null);
    try {
      await run();
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    }
    await client.invalidateQueries({ queryKey: queryKeys.account });
  }
  const others = devices.data?.list.filter((d) => d.token !== devices.data?.current) ?? [];
  return (
    <Modal
      open={open}
      onOpenChange={onOpenChange}
      title="Devices"
      description="Where your account is signed in. A device you sign out loses access within a minute."
    >
      <FormError message={error} />
      <ul aria-label="Signed-in devices" className="mt-4 flex flex-col divide-y divide-zinc-200 dark:divide-zinc-800">
        {devices.isPending && <li className="py-2 text-sm text-zinc-500">Loading…</li>}
        {devices.data?.list.map((device) => {
          const current = device.token === devices.data?.current;
          const label = deviceName(device.userAgent);
          return (
            <li key={device.token} className="flex items-center justify-between gap-3 py-2">
              <div className="min-w-0">
                <p className="truncate text-sm font-medium">
                  {label}{" "}
                  {current && (
                    <span className="ml-1 rounded bg-emerald-100 px-1.5 py-0.5 text-xs text-emerald-800 dark:bg-emerald-900/50 dark:text-emerald-200">
                      This device
                    </span>
                  )}
                </p>
                <p className="truncate text-xs text-zinc-500">
                  Signed in {when(device.createdAt)}
                  {device.ipAddress ? ` · ${device.ipAddress}` : ""}
                </p>
              </div>
              {!current && (
                <Button
                  variant="outline"
                  aria-label={`Sign out ${label}, signed in ${when(device.createdAt)}`}
                  onClick={() => act(() => unwrap(authClient.revokeSession({ token: device.token })))}
                >
                  Sign out
                </Button>
              )}
            </li>
          );
        })}
      </ul>
      <Button
        variant="outline"
        className="mt-2 touch:py-3"
        disabled={others.length === 0}
        onClick={() => act(() => unwrap(authClient.revokeOtherSessions()))}
      >
        Sign out other devices
      </Button>
      <h3 className="mt-5 text-sm font-semibold">Passkeys</h3>
      <ul aria-label="Passkeys" className="mt-1 flex flex-col divide-y divide-zinc-200 dark:divide-zinc-800">
        {passkeys.data?.length === 0 && <li className="py-2 text-sm text-zinc-500">No passkeys yet.</li>}
        {passkeys.data?.map((key) => (
          <li key={key.id} className="flex items-center justify-between gap-3 py-2">
            <p className="min-w-0 truncate text-sm">
              <Fingerprint className="mr-1.5 inline size-4" aria-hidden />
              {key.name || "Passkey"} <span className="text-xs text-zinc-500">· added {when(key.createdAt)}</span>
            </p>
            <Button
              variant="outline"
              aria-label={`Remove passkey ${key.name || ""}`.trim()}
              onClick={() => act(() => unwrap(authClient.$fetch("/passkey/delete-passkey", { method: "POST", body: { id: key.id } })))}
            >
              Remove
            </Button>
          </li>
        ))}
      </ul>
      <Button
        variant="outline"
        className="mt-2 touch:py-3"
        onClick={() => act(() => unwrap(authClient.passkey.addPasskey({ name: deviceName(navigator.userAgent) })))}
      >
        <Fingerprint className="size-4" aria-hidden /> Add a passkey
      </Button>
    </Modal>
  );
}
