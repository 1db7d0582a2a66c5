import type { VersionInfo } from "@/lib/db/types";
import type { RewindReason } from "@/lib/session/rewind";

/** One line of History: a head, and the heads folded under it. */
export interface HistoryEntry {
  version: VersionInfo;
  folded: VersionInfo[];
}

/**
 * Each run of heads that switching versions ended becomes one entry, the newest first with the rest folded
 * under it: every pager click ends a head, and a few clicks back and forth would otherwise fill History.
 * A head the user named or pinned (in the map) is never folded away.
 */
export function foldSwitches(versions: VersionInfo[]): HistoryEntry[] {
  const entries: HistoryEntry[] = [];
  for (const version of versions) {
    const last = entries.at(-1);
    const marked = (v: VersionInfo) => v.label !== null || v.pinned;
    if (version.reason === "switch" && last?.version.reason === "switch" && !marked(version) && !marked(last.version))
      last.folded.push(version);
    else entries.push({ version, folded: [] });
  }
  return entries;
}

const ENDED_BY: Record<RewindReason, string> = {
  rewind: "Before a rewind",
  undo: "Before an Undo",
  edit: "Before an edit",
  regenerate: "Before Regenerate",
  switch: "Before switching versions",
  restore: "Before a restore",
};

/** How a head ended, e.g. "Before an edit"; "Now" for the current one. */
export const endedBy = (version: VersionInfo) => (version.reason ? ENDED_BY[version.reason] : "Now");

const clock = new Intl.DateTimeFormat("en", { timeStyle: "medium" });
const dated = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "short" });

/** "2:32:07 PM" today (heads a few clicks made are seconds apart), "Jun 1, 2025, 9:35 AM" before. */
export function clockTime(iso: string, now = Date.now()): string {
  const at = new Date(iso);
  return at.toDateString() === new Date(now).toDateString() ? clock.format(at) : dated.format(at);
}
