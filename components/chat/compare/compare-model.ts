import { diffWords } from "diff";
import type { MapTurn } from "@/lib/session/tree";

/** A run of a reply's text, and whether the other version lacks it. */
export interface Piece {
  text: string;
  change: "same" | "removed" | "added";
}

/** Replies longer than this are shown without the diff: a word diff of two very long texts is not worth the wait. */
const MAX_DIFFED = 20_000;

/**
 * The two replies as the compare view shows them, word by word: the left with the words only it has marked
 * removed, the right with the words only it has marked added. Without a diff (too long) each is one piece.
 */
export function wordDiff(left: string, right: string): { left: Piece[]; right: Piece[] } {
  if (left.length + right.length > MAX_DIFFED) {
    return { left: [{ text: left, change: "same" }], right: [{ text: right, change: "same" }] };
  }
  const changes = diffWords(left, right);
  return {
    left: changes.filter((c) => !c.added).map((c) => ({ text: c.value, change: c.removed ? "removed" : "same" })),
    right: changes.filter((c) => !c.removed).map((c) => ({ text: c.value, change: c.added ? "added" : "same" })),
  };
}

/** The versions of a turn: the turns with its parent, in order (as the pager and the map number them). */
export const versionsOf = (turns: readonly MapTurn[], invocationId: string): MapTurn[] => {
  const turn = turns.find((t) => t.invocation_id === invocationId);
  return turn ? turns.filter((t) => t.parent_invocation_id === turn.parent_invocation_id) : [];
};

/**
 * The pair a compare opens on, older version left: the turn asked for beside the version shown now, or, when it
 * is the one shown, beside the version before it (after it for the first). Null when the turn has no other version.
 */
export function openingPair(turns: readonly MapTurn[], invocationId: string): [string, string] | null {
  const versions = versionsOf(turns, invocationId);
  const at = versions.findIndex((t) => t.invocation_id === invocationId);
  if (at < 0 || versions.length < 2) return null;
  const shown = versions.findIndex((t) => t.current);
  const other = shown >= 0 && shown !== at ? shown : at > 0 ? at - 1 : at + 1;
  const [left, right] = [at, other].sort((x, y) => x - y);
  return [versions[left].invocation_id, versions[right].invocation_id];
}

/** How long a turn took, from its first event to its task's last update: "0.4 s", "12 s", "2 min 5 s". */
export function tookTime(startIso: string, endIso: string | undefined): string | null {
  if (!endIso) return null;
  const seconds = (Date.parse(endIso) - Date.parse(startIso)) / 1000;
  if (!Number.isFinite(seconds) || seconds < 0) return null;
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  if (seconds < 60) return `${Math.round(seconds)} s`;
  return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
}
