"use client";

import { Fingerprint, KeyRound } from "lucide-react";
import { Tabs } from "radix-ui";
import { useState } from "react";
import { authClient, authErrorMessage } from "@/lib/accounts/client";
import type { SignInOptions } from "@/lib/accounts/viewer";
import { Button } from "../ui/button";
import { Field, FormError, Modal } from "./modal";

type Result = { error: { code?: string; message?: string; status?: number } | null };

const tabClass =
  "flex-1 rounded-md px-3 py-1.5 text-sm font-medium text-zinc-600 data-[state=active]:bg-white data-[state=active]:text-zinc-900 data-[state=active]:shadow-sm touch:py-2.5 dark:text-zinc-400 dark:data-[state=active]:bg-zinc-800 dark:data-[state=active]:text-zinc-100";

/**
 * "Sign in to keep your chats": email and password, a passkey, or the company's single sign-on — and the
 * same to create an account. Whichever way, the chats this browser has now move into the account.
 */
export function SignInDialog({
  open,
  onOpenChange,
  options,
  onSignedIn,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  options: SignInOptions;
  onSignedIn: (created: boolean) => void;
}) {
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  /** Runs one attempt: the dialog stays open with the reason when it fails. */
  async function attempt(run: () => Promise<Result>, created: boolean) {
    setBusy(true);
    setError(null);
    try {
      const { error: failure } = await run();
      if (failure) setError(authErrorMessage(failure));
      else onSignedIn(created);
    } catch (caught) {
      setError(authErrorMessage({ message: caught instanceof Error ? caught.message : String(caught) }));
    } finally {
      setBusy(false);
    }
  }

  const sso = options.oidc;
  const startSso = () => {
    if (!sso) return;
    const here = window.location.pathname;
    void attempt(
      () => authClient.signIn.social({ provider: sso.provider, callbackURL: here, errorCallbackURL: `${here}?signin=failed` }),
      false,
    );
  };
  const canSignUp = options.signup !== "closed";

  return (
    <Modal
      open={open}
      onOpenChange={(next) => {
        setError(null);
        onOpenChange(next);
      }}
      title="Sign in to keep your chats"
      description="Your chats on this device move into your account, and you can open them anywhere you sign in."
    >
      <Tabs.Root defaultValue="sign-in" className="mt-4 flex flex-col gap-4" onValueChange={() => setError(null)}>
        <Tabs.List aria-label="Sign in or create an account" className="flex gap-1 rounded-lg bg-zinc-100 p-1 dark:bg-zinc-950">
          <Tabs.Trigger value="sign-in" className={tabClass}>
            Sign in
          </Tabs.Trigger>
          <Tabs.Trigger value="create" className={tabClass}>
            Create account
          </Tabs.Trigger>
        </Tabs.List>
        {sso && (
          <Button variant="outline" className="touch:py-3" disabled={busy} onClick={startSso}>
            <KeyRound className="size-4" aria-hidden /> Continue with {sso.name}
          </Button>
        )}
        <Tabs.Content value="sign-in" className="flex flex-col gap-3 outline-none">
          <Button
            variant="outline"
            className="touch:py-3"
            disabled={busy}
            onClick={() => attempt(() => authClient.signIn.passkey(), false)}
          >
            <Fingerprint className="size-4" aria-hidden /> Sign in with a passkey
          </Button>
          <p className="text-center text-xs text-zinc-500">or with your email</p>
          <form
            className="flex flex-col gap-3"
            onSubmit={(e) => {
              e.preventDefault();
              void attempt(() => authClient.signIn.email({ email, password }), false);
            }}
          >
            <Field label="Email" type="email" autoComplete="username webauthn" value={email} onChange={setEmail} />
            <Field label="Password" type="password" autoComplete="current-password" value={password} onChange={setPassword} />
            <FormError message={error} />
            <Button type="submit" variant="primary" className="touch:py-3" disabled={busy}>
              Sign in
            </Button>
          </form>
        </Tabs.Content>
        <Tabs.Content value="create" className="flex flex-col gap-3 outline-none">
          {!canSignUp && <p className="text-sm text-zinc-600 dark:text-zinc-400">New accounts are closed on this server.</p>}
          {canSignUp && (
            <form
              className="flex flex-col gap-3"
              onSubmit={(e) => {
                e.preventDefault();
                void attempt(() => authClient.signUp.email({ name, email, password }), true);
              }}
            >
              {options.signup === "invite" && (
                <p className="text-sm text-zinc-600 dark:text-zinc-400">
                  Accounts here are by invitation: use the address you were invited with.
                </p>
              )}
              <Field label="Name" autoComplete="name" value={name} onChange={setName} />
              <Field label="Email" type="email" autoComplete="email" value={email} onChange={setEmail} />
              <Field
                label="Password"
                type="password"
                autoComplete="new-password"
                value={password}
                onChange={setPassword}
                required={false}
                hint="At least 10 characters; a few unrelated words work well."
              />
              <FormError message={error} />
              <Button type="submit" variant="primary" className="touch:py-3" disabled={busy || !password}>
                Create account
              </Button>
              <Button
                variant="outline"
                className="touch:py-3"
                disabled={busy || !name || !email}
                onClick={() =>
                  attempt(
                    () => authClient.passkey.addPasskey({ name: email, context: JSON.stringify({ name, email }), createSession: true }),
                    true,
                  )
                }
              >
                <Fingerprint className="size-4" aria-hidden /> Create account with a passkey
              </Button>
            </form>
          )}
        </Tabs.Content>
      </Tabs.Root>
    </Modal>
  );
}
