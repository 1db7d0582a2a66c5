"use client";

import { GitFork, MoreHorizontal, Pencil, RefreshCw, Undo2 } from "lucide-react";
import { useState } from "react";
import { messageText } from "@/lib/a2a/convert";
import type { Message, Task } from "@/lib/a2a/types";
import { Button } from "../ui/button";
import { cn } from "../ui/cn";
import { focusOnMount } from "../ui/focus-on-mount";
import { Menu, MenuItem } from "../ui/menu";
import { AgentParts } from "./agent-parts";

export interface TurnActions {
  rewind(invocationId: string, text: string): void;
  fork(invocationId: string, text: string): void;
  editAndResend(invocationId: string, text: string): void;
  regenerate(invocationId: string, text: string): void;
}

function ActionsButton(props: React.ButtonHTMLAttributes<HTMLButtonElement>) {
  return (
    <button
      type="button"
      aria-label="Message actions"
      className="rounded-md p-1 text-zinc-500 opacity-0 transition-opacity group-hover:opacity-100 group-focus-within:opacity-100 hover:bg-zinc-100 focus-visible:opacity-100 focus-visible:outline-2 focus-visible:outline-blue-500 disabled:opacity-30 data-[state=open]:opacity-100 dark:hover:bg-zinc-800"
      {...props}
    >
      <MoreHorizontal className="size-4" aria-hidden />
    </button>
  );
}

function UserMessage({ message, disabled, actions }: { message: Message; disabled: boolean; actions?: TurnActions }) {
  const text = messageText(message);
  const invocationId = message.metadata?.kagent_invocation_id as string | undefined;
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(text);

  if (editing && invocationId && actions) {
    return (
      <form
        data-testid="user-message-editor"
        className="ml-auto w-full max-w-[85%] space-y-2"
        onSubmit={(e) => {
          e.preventDefault();
          if (!draft.trim()) return;
          setEditing(false);
          actions.editAndResend(invocationId, draft.trim());
        }}
      >
        <textarea
          aria-label="Edit message"
          ref={focusOnMount}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          rows={3}
          className="w-full resize-y rounded-xl border border-zinc-300 bg-white p-3 text-[15px] outline-none focus:border-zinc-500 dark:border-zinc-700 dark:bg-zinc-900"
        />
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={() => setEditing(false)}>
            Cancel
          </Button>
          <Button variant="primary" type="submit" aria-label="Send edit" disabled={disabled}>
            Send
          </Button>
        </div>
      </form>
    );
  }

  return (
    <div data-testid="user-message" className="group flex items-start justify-end gap-1">
      {invocationId && actions && (
        <Menu trigger={<ActionsButton disabled={disabled} />}>
          <MenuItem icon={<Undo2 className="size-4" />} onSelect={() => actions.rewind(invocationId, text)}>
            Rewind to here
          </MenuItem>
          <MenuItem icon={<GitFork className="size-4" />} onSelect={() => actions.fork(invocationId, text)}>
            Fork chat from here
          </MenuItem>
          <MenuItem
            icon={<Pencil className="size-4" />}
            onSelect={() => {
              setDraft(text);
              setEditing(true);
            }}
          >
            Edit & resend
          </MenuItem>
        </Menu>
      )}
      <div className="max-w-[85%] rounded-2xl bg-zinc-100 px-4 py-2.5 text-[15px] leading-7 whitespace-pre-wrap break-words dark:bg-zinc-800">
        {text}
      </div>
    </div>
  );
}

/** One invocation: the user's message and everything the agent answered. */
export function TurnView({
  sessionId,
  task,
  partial,
  isLast,
  disabled,
  actions,
  rewound,
}: {
  sessionId: string;
  task: Task;
  partial?: string;
  isLast: boolean;
  disabled: boolean;
  actions?: TurnActions;
  rewound?: boolean;
}) {
  const [user, ...agent] = task.history ?? [];
  const invocationId = task.metadata?.kagent_invocation_id as string | undefined;
  const failed = task.status.state === "failed" && !agent.some((m) => m.metadata?.kagent_error);
  return (
    <section
      data-testid={rewound ? "rewound-turn" : "turn"}
      aria-label={rewound ? "Rewound turn" : undefined}
      className={cn("space-y-3", rewound && "opacity-45 grayscale")}
    >
      {user && <UserMessage message={user} disabled={disabled || Boolean(rewound)} actions={rewound ? undefined : actions} />}
      {(agent.length > 0 || partial || failed) && (
        <div data-testid="agent-message" className="group relative">
          <AgentParts sessionId={sessionId} messages={agent} partial={partial} />
          {failed && task.status.message && (
            <p role="alert" className="text-sm text-red-600">
              {messageText(task.status.message)}
            </p>
          )}
          {isLast && !rewound && actions && invocationId && user && (
            <div className="mt-1">
              <Menu align="start" trigger={<ActionsButton disabled={disabled} />}>
                <MenuItem icon={<RefreshCw className="size-4" />} onSelect={() => actions.regenerate(invocationId, messageText(user))}>
                  Regenerate
                </MenuItem>
              </Menu>
            </div>
          )}
        </div>
      )}
    </section>
  );
}
