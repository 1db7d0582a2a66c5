"use client";

import { FileText, GitFork, LogIn } from "lucide-react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { toast } from "sonner";
import type { SignInOptions } from "@/lib/accounts/viewer";
import type { SharedTurn } from "@/lib/session/share-view";
import type { Part } from "@/lib/session/types";
import { useArrivalNotice } from "../account/arrival-notice";
import { SignInDialog } from "../account/sign-in-dialog";
import { MessageFiles } from "../chat/attachments/attachment-chips";
import { ToolBlock } from "../chat/turn/agent-parts";
import { Markdown } from "../chat/turn/markdown";
import { Button } from "../ui/button";
import { notifyError } from "../ui/notify";
import { ThemeMenu } from "../ui/theme-menu";

function AgentReply({ parts }: { parts: Part[] }) {
  const responses = new Map(parts.flatMap((p) => (p.function_response?.id ? [[p.function_response.id, p.function_response]] : [])));
  return (
    <div data-testid="agent-message" className="min-w-0 text-[15px] leading-7">
      {parts.map((part, i) => {
        const key = `${i}`;
        if (part.text?.trim()) return <Markdown key={key} text={part.text} />;
        if (part.function_call) {
          const response = part.function_call.id ? responses.get(part.function_call.id)?.response : undefined;
          return <ToolBlock key={key} name={part.function_call.name} args={part.function_call.args} response={response} />;
        }
        return null;
      })}
    </div>
  );
}

function ContinueButton({ token }: { token: string }) {
  const router = useRouter();
  const [pending, setPending] = useState(false);
  const go = async () => {
    setPending(true);
    try {
      const response = await fetch(`/api/shared/${token}/fork`, { method: "POST" });
      const body = (await response.json()) as { data?: { id: string }; error?: string };
      if (!response.ok || !body.data) throw new Error(body.error ?? "The chat could not be copied");
      router.push(`/chat/${body.data.id}`);
    } catch (error) {
      notifyError(error);
      setPending(false);
    }
  };
  return (
    <Button variant="primary" disabled={pending} onClick={() => void go()} className="touch:min-h-11">
      <GitFork className="size-4" aria-hidden /> Continue from here
    </Button>
  );
}

/**
 * Signing in on the share page itself (its dialog, or single sign-on that comes back here): the page then
 * offers "Continue from here".
 */
function SignInToContinue({ options }: { options: SignInOptions }) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  useArrivalNotice();
  return (
    <>
      <Button variant="primary" onClick={() => setOpen(true)} className="touch:min-h-11">
        <LogIn className="size-4" aria-hidden /> Sign in to continue
      </Button>
      <SignInDialog
        open={open}
        onOpenChange={setOpen}
        options={options}
        onSignedIn={(created) => {
          setOpen(false);
          toast.success(created ? "Account created. You can continue this chat now." : "Signed in. You can continue this chat now.");
          router.refresh();
        }}
      />
    </>
  );
}

/** A share link's page: one version of a chat, read-only; a signed-in reader can continue it as their own chat. */
export function SharedChat(props: {
  token: string;
  name: string;
  agent: string;
  sharedAt: string;
  turns: SharedTurn[];
  files: string[];
  signedIn: boolean;
  signInOptions: SignInOptions;
}) {
  const { turns } = props;
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex items-center gap-3 border-b border-zinc-200 px-4 py-2 dark:border-zinc-800">
        <a href="/" className="text-base font-semibold tracking-tight">
          Retrace
        </a>
        <span className="rounded-full bg-zinc-100 px-2 py-0.5 text-xs text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300">
          Shared · read-only
        </span>
        <div className="flex-1" />
        <ThemeMenu />
      </header>
      <main className="mx-auto w-full max-w-3xl flex-1 px-4 py-6">
        <h1 className="text-xl font-semibold">{props.name}</h1>
        <p className="mt-1 text-sm text-zinc-500">
          With {props.agent} · shared <time dateTime={props.sharedAt}>{new Date(props.sharedAt).toLocaleDateString()}</time> ·{" "}
          {turns.length} {turns.length === 1 ? "turn" : "turns"}
        </p>
        <ol aria-label="Shared conversation" className="mt-6 space-y-6">
          {turns.map((turn) => (
            <li key={turn.id} className="space-y-3">
              {turn.user !== null && (
                <div data-testid="user-message" className="flex flex-col items-end gap-1">
                  {(turn.user || turn.attachments.length === 0) && (
                    <div className="max-w-[85%] rounded-2xl bg-zinc-100 px-4 py-2.5 text-[15px] leading-7 whitespace-pre-wrap break-words dark:bg-zinc-800">
                      {turn.user}
                    </div>
                  )}
                  <MessageFiles
                    files={turn.attachments.map((a) => ({
                      url: `/s/${props.token}/files/${encodeURIComponent(a.filename)}?version=${a.version}`,
                      name: a.filename,
                      mimeType: a.mime_type,
                      size: a.size,
                    }))}
                  />
                </div>
              )}
              {turn.agent.length > 0 && <AgentReply parts={turn.agent} />}
            </li>
          ))}
        </ol>
        {props.files.length > 0 && (
          <section aria-label="Files" className="mt-8 border-t border-zinc-200 pt-4 dark:border-zinc-800">
            <h2 className="text-sm font-medium">Files</h2>
            <ul className="mt-2 flex flex-wrap gap-2">
              {props.files.map((filename) => (
                <li key={filename}>
                  <a
                    href={`/s/${props.token}/files/${encodeURIComponent(filename)}`}
                    target="_blank"
                    rel="noopener noreferrer"
                    className="inline-flex items-center gap-1.5 rounded-full border border-zinc-300 px-2.5 py-1 text-xs hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
                  >
                    <FileText className="size-3.5" aria-hidden />
                    {filename}
                  </a>
                </li>
              ))}
            </ul>
          </section>
        )}
        <div className="mt-10 flex flex-col items-start gap-2 rounded-xl border border-zinc-200 p-4 sm:flex-row sm:items-center dark:border-zinc-800">
          <p className="flex-1 text-sm text-zinc-600 dark:text-zinc-400">
            {props.signedIn
              ? "Continue this conversation as a chat of your own, with its state and files."
              : "Sign in to Retrace to continue this conversation as a chat of your own. You come back here."}
          </p>
          {props.signedIn ? <ContinueButton token={props.token} /> : <SignInToContinue options={props.signInOptions} />}
        </div>
      </main>
    </div>
  );
}
