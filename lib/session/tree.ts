/**
 * The chat's map (docs/semantics.md, "The map"): every turn the log holds as one tree, built from the parent
 * links recorded at append (lib/session/versions.ts). The current head is the path from a root to the leaf
 * at the chat's tail; every other turn is rewound. Siblings are other versions of one turn, ordered by seq.
 */
import { type ChatUsage, type Cost, chatUsage, type UsageMetadata } from "./usage";

/** One turn as the store reads it (markers are no turns: they only move the tail). */
export interface TreeRow {
  invocationId: string;
  parentId: string | null;
  firstSeq: number;
  text: string;
  /** The text of the turn's last event, the agent's answer when the turn ended with one ("" otherwise). */
  reply: string;
  /** The turn's first event, seconds since the epoch. */
  timestamp: number;
  /** The model it ran on, what its model calls used and what that cost (from its task; null when unknown). */
  model: string | null;
  usage: UsageMetadata | null;
  cost: Cost | null;
}

/** A user's name and pin on a turn. */
export interface TurnLabel {
  label: string | null;
  pinned: boolean;
}

export interface MapTurn {
  invocation_id: string;
  parent_invocation_id: string | null;
  /** The user's message, shortened. */
  text: string;
  /** The first words of the agent's answer, as plain text ("" when the turn ended without one). */
  reply: string;
  timestamp: string;
  /** On the path the chat shows now; false for a rewound turn. */
  current: boolean;
  /** 1-based place among the turns with the same parent, and their number: "version 2 of 3". */
  sibling_index: number;
  sibling_count: number;
  label: string | null;
  pinned: boolean;
  model: string | null;
  usage: UsageMetadata | null;
  cost: Cost | null;
}

/** Another chat branching off this one's tree: a fork, or the source this chat was forked from. */
export interface MapLink {
  session_id: string;
  name: string;
  /** The turn the other chat's conversation continues from (null: from before the first turn). */
  after_invocation_id: string | null;
}

export interface ChatTree {
  /** In seq order. */
  turns: MapTurn[];
  forks: MapLink[];
  source: MapLink | null;
  /** Tokens and cost of the turns shown now, and of the rewound ones. */
  usage: ChatUsage;
}

/** What a map node shows of the user's message, and of the answer: versions of one turn told apart by it. */
const SNIPPET = 140;
const REPLY = 80;

const snippet = (text: string, length = SNIPPET) => {
  const line = text.trim().replace(/\s+/g, " ");
  return line.length > length ? `${line.slice(0, length).trim()}…` : line;
};

/** An answer's first words without its Markdown: link targets, emphasis, code and heading marks go. */
const replySnippet = (markdown: string) =>
  snippet(
    markdown
      .slice(0, 4 * REPLY)
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/[*_`~#>|]+/g, ""),
    REPLY,
  );

/** The turns on the path from a root to `leafId`: the current head. Linear in its length. */
function pathTo(leafId: string | null, parentOf: ReadonlyMap<string, string | null>): Set<string> {
  const path = new Set<string>();
  for (let id = leafId; id !== null && parentOf.has(id) && !path.has(id); id = parentOf.get(id) ?? null) path.add(id);
  return path;
}

/** The map of `rows` (any order), the chat now showing the head that ends at `leafId`. */
export function chatTree(
  rows: readonly TreeRow[],
  leafId: string | null,
  labels: ReadonlyMap<string, TurnLabel>,
  links: { forks: MapLink[]; source: MapLink | null },
): ChatTree {
  const sorted = [...rows].sort((a, b) => a.firstSeq - b.firstSeq);
  const current = pathTo(leafId, new Map(sorted.map((r) => [r.invocationId, r.parentId])));
  const count = new Map<string | null, number>();
  const index = new Map<string, number>();
  for (const r of sorted) {
    const n = (count.get(r.parentId) ?? 0) + 1;
    count.set(r.parentId, n);
    index.set(r.invocationId, n);
  }
  const turns = sorted.map((r): MapTurn => {
    const label = labels.get(r.invocationId);
    return {
      invocation_id: r.invocationId,
      parent_invocation_id: r.parentId,
      text: snippet(r.text),
      reply: replySnippet(r.reply),
      timestamp: new Date(r.timestamp * 1000).toISOString(),
      current: current.has(r.invocationId),
      sibling_index: index.get(r.invocationId) ?? 1,
      sibling_count: count.get(r.parentId) ?? 1,
      label: label?.label ?? null,
      pinned: label?.pinned ?? false,
      model: r.model,
      usage: r.usage,
      cost: r.cost,
    };
  });
  return { turns, ...links, usage: chatUsage(turns) };
}

/** The last turn the chat shows: a turn is appended after its parent, so the current head's last by seq. */
export const shownLeaf = (tree: ChatTree) => tree.turns.findLast((t) => t.current)?.invocation_id ?? null;
