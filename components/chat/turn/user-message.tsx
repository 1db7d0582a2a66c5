"use client";

import { GitFork, Pencil, Undo2 } from "lucide-react";
import { useState } from "react";
import { messageText } from "@/lib/task/convert";
import { invocationIdOf } from "@/lib/task/metadata";
import type { Message } from "@/lib/task/types";
import { Button } from "../../ui/button";
import { focusOnMount } from "../../ui/focus-on-mount";
import { Menu, MenuItem } from "../../ui/menu";
import { filesOf, MessageFiles, resentFiles } from "../attachments/attachment-chips";
import type { FileLink } from "../attachments/file-viewer";
import { ActionsButton, ActionsRow, about, CopyAction } from "./message-actions";
import type { TurnActions } from "./use-turn-actions";

/** Edit & resend's box: the composer's keys (Enter sends, Shift+Enter is a new line) and Escape cancels; the message's files go again. */
function MessageEditor({
  text,
  files,
  disabled,
  onSend,
  onCancel,
}: {
  text: string;
  files: FileLink[];
  disabled: boolean;
  onSend: (text: string) => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState(text);
  const sendable = draft.trim() !== "" || files.length > 0;
  const submit = () => {
    if (sendable && !disabled) onSend(draft.trim());
  };
  return (
    <form
      data-testid="user-message-editor"
      className="ml-auto w-full max-w-[85%] space-y-2"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <textarea
        aria-label="Edit message"
        ref={focusOnMount}
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            onCancel();
          } else if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            submit();
          }
        }}
        rows={3}
        className="w-full resize-y rounded-xl border border-zinc-300 bg-white p-3 text-[15px] outline-none focus:border-zinc-500 dark:border-zinc-700 dark:bg-zinc-900"
      />
      <div className="flex justify-end">
        <MessageFiles files={files} />
      </div>
      <div className="flex justify-end gap-2">
        <Button variant="outline" onClick={onCancel}>
          Cancel
        </Button>
        <Button variant="primary" type="submit" aria-label="Send edit" disabled={disabled || !sendable}>
          Send
        </Button>
      </div>
    </form>
  );
}

/** The user's message: its bubble, Copy, and (when it has an invocation) Rewind, Fork and Edit & resend. */
export function UserMessage({
  message,
  disabled,
  actions,
  pager,
}: {
  message: Message;
  disabled: boolean;
  actions?: TurnActions;
  pager?: React.ReactNode;
}) {
  const text = messageText(message);
  const files = filesOf(message);
  const invocationId = invocationIdOf(message);
  const [editing, setEditing] = useState(false);

  if (editing && invocationId && actions) {
    return (
      <MessageEditor
        text={text}
        files={files}
        disabled={disabled}
        onCancel={() => setEditing(false)}
        onSend={(edited) => {
          setEditing(false);
          actions.resend(invocationId, edited, "edit", resentFiles(files));
        }}
      />
    );
  }

  return (
    <div data-testid="user-message" className="group flex flex-col items-end gap-1">
      {(text || files.length === 0) && (
        <div className="max-w-[85%] rounded-2xl bg-zinc-100 px-4 py-2.5 text-[15px] leading-7 whitespace-pre-wrap break-words dark:bg-zinc-800">
          {text}
        </div>
      )}
      <MessageFiles files={files} />
      <ActionsRow align="end" pager={pager}>
        <CopyAction text={() => text} of={about(text)} />
        {invocationId && actions && (
          <Menu trigger={<ActionsButton disabled={disabled} of={about(text)} />}>
            <MenuItem
              icon={<Undo2 className="size-4" />}
              description="Remove this and later turns; state and files go back"
              onSelect={() => actions.rewind(invocationId, text)}
            >
              Rewind to here
            </MenuItem>
            <MenuItem
              icon={<GitFork className="size-4" />}
              description="A new chat from just before this message; this one stays as it is"
              onSelect={() => actions.fork(invocationId, text)}
            >
              Fork chat from here
            </MenuItem>
            <MenuItem
              icon={<Pencil className="size-4" />}
              description="Change this message and send it again; later turns are rewound"
              onSelect={() => setEditing(true)}
            >
              Edit & resend
            </MenuItem>
          </Menu>
        )}
      </ActionsRow>
    </div>
  );
}
