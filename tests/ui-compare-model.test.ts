import { describe, expect, it } from "vitest";
import { openingPair, tookTime, versionsOf, wordDiff } from "@/components/chat/compare/compare-model";
import type { MapTurn } from "@/lib/session/tree";

const turn = (id: string, parent: string | null, current: boolean): MapTurn => ({
  invocation_id: id,
  parent_invocation_id: parent,
  text: id,
  reply: "",
  timestamp: "2030-01-01T00:00:00.000Z",
  current,
  sibling_index: 1,
  sibling_count: 1,
  label: null,
  pinned: false,
  model: null,
  usage: null,
  cost: null,
});

describe("compare versions (pure)", () => {
  it("marks the words only the left has as removed and only the right has as added", () => {
    expect(wordDiff("Done — color is now red.", "color = red")).toEqual({
      left: [
        { text: "Done — ", change: "removed" },
        { text: "color ", change: "same" },
        { text: "is now", change: "removed" },
        { text: " red", change: "same" },
        { text: ".", change: "removed" },
      ],
      right: [
        { text: "color ", change: "same" },
        { text: "=", change: "added" },
        { text: " red", change: "same" },
      ],
    });
    expect(wordDiff("same words", "same words")).toEqual({
      left: [{ text: "same words", change: "same" }],
      right: [{ text: "same words", change: "same" }],
    });
    const long = "x ".repeat(11_000);
    expect(wordDiff(long, `${long}y`).right).toEqual([{ text: `${long}y`, change: "same" }]);
  });

  it("opens on the turn asked for beside the version shown now, or beside its neighbour; older left", () => {
    const turns = [turn("A", null, true), turn("B", "A", false), turn("B2", "A", false), turn("B3", "A", true), turn("C", "B3", true)];
    expect(versionsOf(turns, "B2").map((t) => t.invocation_id)).toEqual(["B", "B2", "B3"]);
    expect(openingPair(turns, "B")).toEqual(["B", "B3"]);
    expect(openingPair(turns, "B3")).toEqual(["B2", "B3"]);
    expect(openingPair([turn("A", null, true), turn("A2", null, false)], "A")).toEqual(["A", "A2"]);
    expect(openingPair(turns, "C")).toBeNull();
    expect(openingPair(turns, "nope")).toBeNull();
  });

  it("says how long a turn took", () => {
    const start = "2030-01-01T00:00:00.000Z";
    expect(tookTime(start, "2030-01-01T00:00:00.400Z")).toBe("0.4 s");
    expect(tookTime(start, "2030-01-01T00:00:12.000Z")).toBe("12 s");
    expect(tookTime(start, "2030-01-01T00:02:05.000Z")).toBe("2 min 5 s");
    expect(tookTime(start, undefined)).toBeNull();
  });
});
