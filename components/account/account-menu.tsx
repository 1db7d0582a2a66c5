"use client";

import { KeyRound, LogOut, MonitorSmartphone, Trash2, UserRound } from "lucide-react";
import { useState } from "react";
import type { Viewer } from "@/lib/accounts/viewer";
import { Menu, MenuItem } from "../ui/menu";
import { DeleteAccountDialog } from "./delete-account-dialog";
import { DevicesDialog } from "./devices-dialog";
import { TokensDialog } from "./tokens-dialog";

type Open = "devices" | "tokens" | "delete" | null;

/** The signed-in person's menu: who they are, their devices and passkeys, API tokens, deleting the account, signing out. */
export function AccountMenu({ viewer, onSignOut }: { viewer: Viewer; onSignOut: () => void }) {
  const [open, setOpen] = useState<Open>(null);
  const close = (next: boolean) => !next && setOpen(null);
  const proxied = viewer.kind === "proxy";
  return (
    <>
      <Menu
        align="start"
        trigger={
          <button
            type="button"
            aria-label={`Account: ${viewer.name}`}
            className="flex w-full min-w-0 items-center gap-2 rounded-md px-2 py-1.5 text-left hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-blue-500 touch:py-2.5 dark:hover:bg-zinc-800"
          >
            <span className="inline-flex size-7 shrink-0 items-center justify-center rounded-full bg-zinc-200 dark:bg-zinc-700" aria-hidden>
              <UserRound className="size-4" />
            </span>
            <span className="flex min-w-0 flex-col">
              <span className="truncate text-sm font-medium">{viewer.name}</span>
              <span className="truncate text-xs text-zinc-500">{viewer.email}</span>
            </span>
          </button>
        }
      >
        {!proxied && (
          <MenuItem
            icon={<MonitorSmartphone className="size-4" />}
            description="Where you're signed in, and your passkeys"
            onSelect={() => setOpen("devices")}
          >
            Devices
          </MenuItem>
        )}
        <MenuItem
          icon={<KeyRound className="size-4" />}
          description="Bearer tokens for the REST and A2A API"
          onSelect={() => setOpen("tokens")}
        >
          API tokens
        </MenuItem>
        <MenuItem icon={<Trash2 className="size-4" />} danger onSelect={() => setOpen("delete")}>
          Delete account…
        </MenuItem>
        {!proxied && (
          <MenuItem icon={<LogOut className="size-4" />} onSelect={onSignOut}>
            Sign out
          </MenuItem>
        )}
      </Menu>
      {open === "devices" && <DevicesDialog open onOpenChange={close} />}
      {open === "tokens" && <TokensDialog open onOpenChange={close} />}
      {open === "delete" && <DeleteAccountDialog open onOpenChange={close} email={viewer.email ?? ""} />}
    </>
  );
}
