import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { loadedTasks, truncateTasks } from "@/components/chat/queries";
import { rowsByDay } from "@/components/chat/sidebar/sidebar";
import { siblingsOf } from "@/components/chat/turn/turn-rows";
import type { SessionSummary } from "@/lib/db/types";
import { queryKeys } from "@/lib/query-keys";
import type { Task } from "@/lib/task/types";

const task = (id: string, metadata: Record<string, unknown> = {}): Task => ({
  kind: "task",
  id,
  contextId: "s",
  status: { state: "completed" },
  metadata: { kagent_invocation_id: `e-${id}`, ...metadata },
});

/** A chat's cache as the infinite query keeps it: the latest page first, each page in chronological order. */
function cached(...pages: string[][]) {
  const client = new QueryClient();
  client.setQueryData(queryKeys.tasks("s", false), {
    pages: pages.map((ids, i) => ({ data: ids.map((id) => task(id)), next_before: i < pages.length - 1 ? `c${i}` : null })),
    pageParams: pages.map((_, i) => (i === 0 ? null : `c${i - 1}`)),
  });
  return client;
}

describe("the chat's loaded pages", () => {
  it("read oldest first across pages", () => {
    expect(loadedTasks(cached(["d", "e"], ["a", "b", "c"]), "s").map((t) => t.id)).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("a rewind of a turn on an older page drops it and everything after, on every page", () => {
    const client = cached(["d", "e"], ["a", "b", "c"]);
    truncateTasks(client, "s", "e-b");
    expect(loadedTasks(client, "s").map((t) => t.id)).toEqual(["a"]);
    expect(client.getQueryData<{ pages: { data: Task[] }[] }>(queryKeys.tasks("s", false))?.pages.map((p) => p.data.length)).toEqual([
      0, 1,
    ]);
  });

  it("a turn that is not loaded changes nothing", () => {
    const client = cached(["d", "e"], ["a", "b", "c"]);
    truncateTasks(client, "s", "e-zzz");
    expect(loadedTasks(client, "s")).toHaveLength(5);
  });
});

describe("siblingsOf", () => {
  it("reads retrace_siblings, and nothing for a turn without other versions", () => {
    const siblings = { index: 2, invocation_ids: ["e-a", "e-b", "e-c"], regenerations: true };
    expect(siblingsOf(task("b", { retrace_siblings: siblings }))).toEqual({
      index: 2,
      invocationIds: ["e-a", "e-b", "e-c"],
      regenerations: true,
    });
    expect(siblingsOf(task("a"))).toBeNull();
    expect(siblingsOf(task("a", { retrace_siblings: { index: 1, invocation_ids: ["e-a"] } }))).toBeNull();
    expect(siblingsOf(task("a", { retrace_siblings: "nonsense" }))).toBeNull();
  });
});

describe("rowsByDay", () => {
  it("puts one heading above each day group of the newest-first chats", () => {
    const now = Date.parse("2030-06-15T12:00:00");
    const chat = (id: string, at: string) => ({ id, name: id, updated_at: at }) as SessionSummary;
    const rows = rowsByDay(
      [
        chat("a", "2030-06-15T11:00:00"),
        chat("b", "2030-06-15T01:00:00"),
        chat("c", "2030-06-14T09:00:00"),
        chat("d", "2030-01-01T00:00:00"),
      ],
      now,
    );
    expect(rows.map((r) => (r.kind === "day" ? r.label : r.session.id))).toEqual(["Today", "a", "b", "Yesterday", "c", "Older", "d"]);
  });
});
