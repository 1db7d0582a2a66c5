"use client";

import { useQueryClient } from "@tanstack/react-query";
import { Columns2, Pin } from "lucide-react";
import { type RefObject, useState } from "react";
import { labelChatVersion } from "@/lib/api/chat-actions";
import { queryKeys } from "@/lib/query-keys";
import type { MapTurn } from "@/lib/session/tree";
import { Button } from "../../ui/button";
import { notifyError } from "../../ui/notify";
import { timeAgo } from "../turn/turn-rows";
import { factsLine } from "../turn/usage-format";
import { unwrapAction } from "../unwrap-action";

/**
 * The focused turn of the map in full — its model and tokens too — with its name and pin: a version worth finding
 * again gets a name, and a pinned one stays marked in the map and in History. A turn with versions can be compared
 * with them.
 */
export function MapDetails({
  sessionId,
  turn,
  onCompare,
  nameField,
}: {
  sessionId: string;
  turn: MapTurn;
  onCompare: (invocationId: string) => void;
  nameField: RefObject<HTMLInputElement | null>;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(turn.label ?? "");
  const [saving, setSaving] = useState(false);

  async function save(label: string | null, pinned: boolean) {
    setSaving(true);
    try {
      await unwrapAction(labelChatVersion({ sessionId, invocationId: turn.invocation_id, label, pinned }));
      await Promise.all(
        [queryKeys.tree(sessionId), queryKeys.versions(sessionId)].map((queryKey) => queryClient.invalidateQueries({ queryKey })),
      );
    } catch (error) {
      notifyError(error);
    } finally {
      setSaving(false);
    }
  }

  const changed = name.trim() !== (turn.label ?? "");
  return (
    <section aria-label="Selected version" className="border-t border-zinc-200 p-3 text-sm dark:border-zinc-800">
      <p className="line-clamp-2 break-words" title={turn.text}>
        {turn.text || <span className="text-zinc-500 italic">No text</span>}
      </p>
      {turn.reply && <p className="truncate text-xs text-zinc-600 dark:text-zinc-400">{turn.reply}</p>}
      <p className="mt-0.5 text-xs text-zinc-500 dark:text-zinc-400">
        Version {turn.sibling_index} of {turn.sibling_count} ·{" "}
        <time dateTime={turn.timestamp} title={new Date(turn.timestamp).toLocaleString()}>
          {timeAgo(turn.timestamp)}
        </time>{" "}
        · {turn.current ? "shown now" : "rewound"}
        {factsLine(turn) && ` · ${factsLine(turn)}`}
      </p>
      <form
        className="mt-2 flex flex-wrap items-center gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          if (changed) void save(name.trim() || null, turn.pinned);
        }}
      >
        <input
          ref={nameField}
          aria-label="Version name"
          placeholder="Name this version"
          value={name}
          maxLength={100}
          onChange={(e) => setName(e.target.value)}
          className="min-w-0 flex-1 rounded-md border border-zinc-300 bg-transparent px-2 py-1.5 text-sm touch:min-h-11 dark:border-zinc-700"
        />
        <Button type="submit" variant="outline" className="touch:min-h-11" disabled={saving || !changed}>
          Save name
        </Button>
        <Button
          variant={turn.pinned ? "primary" : "outline"}
          className="touch:min-h-11"
          aria-pressed={turn.pinned}
          disabled={saving}
          onClick={() => void save(turn.label, !turn.pinned)}
        >
          <Pin className="size-4" aria-hidden />
          Pin
        </Button>
        {turn.sibling_count > 1 && (
          <Button variant="outline" className="touch:min-h-11" onClick={() => onCompare(turn.invocation_id)}>
            <Columns2 className="size-4" aria-hidden />
            Compare versions
          </Button>
        )}
      </form>
    </section>
  );
}
