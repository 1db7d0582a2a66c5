"use client";

import { useState } from "react";
import { api } from "@/lib/api/client";
import { Button } from "../ui/button";
import { readableError } from "../ui/readable-error";
import { Field, FormError, Modal } from "./modal";

/** Deleting the account and everything in it, confirmed by typing its email address. */
export function DeleteAccountDialog({
  open,
  onOpenChange,
  email,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  email: string;
}) {
  const [typed, setTyped] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function remove() {
    setBusy(true);
    setError(null);
    try {
      await api("/api/account", { method: "DELETE", body: JSON.stringify({ email: typed }) });
      window.location.assign("/?deleted");
    } catch (caught) {
      setError(readableError(caught));
      setBusy(false);
    }
  }
  return (
    <Modal
      open={open}
      onOpenChange={onOpenChange}
      title="Delete account"
      description="This deletes the account and every chat, file and token in it, on every device. It cannot be undone."
    >
      <form
        className="mt-4 flex flex-col gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          void remove();
        }}
      >
        <Field label={`Type ${email} to confirm`} type="email" autoComplete="off" value={typed} onChange={setTyped} />
        <FormError message={error} />
        <Button type="submit" variant="danger" className="touch:py-3" disabled={busy || typed.trim().toLowerCase() !== email}>
          Delete account and all chats
        </Button>
      </form>
    </Modal>
  );
}
