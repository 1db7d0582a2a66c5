import type { RewindReason } from "@/lib/session/rewind";
import type { Task } from "@/lib/task/types";

/** What `?include_rewound=true` says about a hidden turn: the marker that hid it, when and why. */
export interface Rewound {
  markerInvocationId: string;
  at: string | null;
  reason: RewindReason;
}

/** A turn's place among its versions (docs/semantics.md, "Versions"), from `metadata.retrace_siblings`. */
export interface Siblings {
  /** 1-based. */
  index: number;
  invocationIds: string[];
  /** Every version starts with the same user text: the pager sits on the reply. */
  regenerations: boolean;
}

export function siblingsOf(task: Task): Siblings | null {
  const value = task.metadata?.retrace_siblings as { index?: unknown; invocation_ids?: unknown; regenerations?: unknown } | undefined;
  if (!value || typeof value.index !== "number" || !Array.isArray(value.invocation_ids) || value.invocation_ids.length < 2) return null;
  return { index: value.index, invocationIds: value.invocation_ids as string[], regenerations: value.regenerations === true };
}

export interface TurnRow {
  task: Task;
  rewound: Rewound | null;
  /** The first of a run of turns hidden by one marker: the divider that explains them goes above it. */
  divider: boolean;
}

const REASONS: Record<RewindReason, string> = {
  rewind: "Rewound",
  undo: "Hidden by Undo",
  edit: "Replaced by an edit",
  regenerate: "Replaced by Regenerate",
  switch: "Hidden when switching versions",
  restore: "Hidden by Restore",
};

function rewoundOf(task: Task): Rewound | null {
  const meta = task.metadata;
  if (meta?.rewound !== true || typeof meta.rewound_by !== "string") return null;
  const reason = meta.rewound_reason as RewindReason;
  return {
    markerInvocationId: meta.rewound_by,
    at: typeof meta.rewound_at === "string" ? meta.rewound_at : null,
    reason: reason in REASONS ? reason : "rewind",
  };
}

/** The rows of a conversation: each turn, whether a rewind hid it, and where a divider starts a hidden run. */
export function turnRows(tasks: Task[]): TurnRow[] {
  const rewound = tasks.map(rewoundOf);
  return tasks.map((task, i) => ({
    task,
    rewound: rewound[i],
    divider: rewound[i] !== null && rewound[i]?.markerInvocationId !== rewound[i - 1]?.markerInvocationId,
  }));
}

const relative = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
];

/** "1 turn", "3 turns"; "1 switch", "2 switches" given the plural. */
export const plural = (n: number, word: string, words = `${word}s`) => `${n} ${n === 1 ? word : words}`;

/** "5 minutes ago", "yesterday"; "just now" under a minute. */
export function timeAgo(iso: string, now = Date.now()): string {
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return relative.format(-Math.floor(seconds / size), unit);
  }
  return "just now";
}

/** The divider's words: why these turns are hidden and when, e.g. "Replaced by an edit 5 minutes ago". */
export function describeRewind(rewound: Rewound, now = Date.now()): string {
  return rewound.at ? `${REASONS[rewound.reason]} ${timeAgo(rewound.at, now)}` : REASONS[rewound.reason];
}
