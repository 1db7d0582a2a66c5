"use client";

import { History } from "lucide-react";
import { Button } from "../../ui/button";
import { describeRewind, type Rewound } from "../turn/turn-rows";

/** Heads a run of rewound turns: when and why they were hidden, and "Restore" to bring them back. */
export function RewindDivider({ rewound, disabled, onRestore }: { rewound: Rewound; disabled: boolean; onRestore?: () => void }) {
  return (
    <div data-testid="rewind-divider" className="flex items-center gap-3 text-xs text-zinc-500 dark:text-zinc-400">
      <span className="h-px flex-1 bg-zinc-300 dark:bg-zinc-700" />
      <History className="size-3.5 shrink-0" aria-hidden />
      <span title={rewound.at ? new Date(rewound.at).toLocaleString() : undefined}>{describeRewind(rewound)}</span>
      {onRestore && (
        <Button variant="outline" className="px-2 py-0.5 text-xs touch:min-h-11" disabled={disabled} onClick={onRestore}>
          Restore
        </Button>
      )}
      <span className="h-px flex-1 bg-zinc-300 dark:bg-zinc-700" />
    </div>
  );
}
