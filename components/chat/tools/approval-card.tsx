"use client";

import { ShieldQuestion } from "lucide-react";
import { useId, useState } from "react";
import { Button } from "../../ui/button";
import type { CallDecision } from "./tool-effects";

/** The card on a call that waits for the user: what it would run, Approve, Deny with an optional reason, and "Always allow in this chat". */
export function ApprovalCard({
  name,
  args,
  decided,
  disabled,
  onDecide,
}: {
  name: string;
  args: unknown;
  /** This call's decision, given while others of the same step still wait. */
  decided?: CallDecision;
  disabled: boolean;
  onDecide: (decision: CallDecision) => void;
}) {
  const [reason, setReason] = useState("");
  const [always, setAlways] = useState(false);
  const id = useId();
  return (
    <fieldset
      aria-labelledby={`${id}-title`}
      data-testid="approval-card"
      className="my-2 min-w-0 space-y-2 rounded-lg border border-amber-300 bg-amber-50 px-3 py-2 text-sm dark:border-amber-800 dark:bg-amber-950/40"
    >
      <p id={`${id}-title`} className="flex items-center gap-2 font-medium">
        <ShieldQuestion className="size-4 text-amber-700 dark:text-amber-400" aria-hidden />
        Run <span className="font-mono">{name}</span>?
      </p>
      <pre className="overflow-x-auto rounded bg-white/70 px-2 py-1 font-mono text-xs dark:bg-zinc-900/60">
        {JSON.stringify(args ?? {}, null, 2)}
      </pre>
      {decided ? (
        <p className="text-xs text-zinc-600 dark:text-zinc-400">
          {decided.approve ? "Approved" : "Denied"} — waiting for the other calls' decisions.
        </p>
      ) : (
        <>
          <label className="flex items-center gap-2 text-xs">
            <input type="checkbox" checked={always} onChange={(e) => setAlways(e.target.checked)} disabled={disabled} />
            Always allow in this chat
          </label>
          <div className="flex flex-wrap items-center gap-2">
            <Button
              variant="primary"
              disabled={disabled}
              onClick={() => onDecide({ approve: true, always })}
              className="px-3 py-1 touch:min-h-11"
            >
              Approve
            </Button>
            <Button
              variant="outline"
              disabled={disabled}
              onClick={() => onDecide({ approve: false, reason: reason.trim() || undefined })}
              className="px-3 py-1 touch:min-h-11"
            >
              Deny
            </Button>
            <input
              aria-label="Reason for denying (optional)"
              placeholder="Reason for denying (optional)"
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              disabled={disabled}
              maxLength={2000}
              className="min-w-0 flex-1 rounded border border-zinc-300 bg-white px-2 py-1 text-xs dark:border-zinc-700 dark:bg-zinc-900"
            />
          </div>
        </>
      )}
    </fieldset>
  );
}
