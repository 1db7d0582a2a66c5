import { describe, expect, it } from "vitest";
import { clockTime, endedBy, foldSwitches } from "@/components/chat/history/history-entries";
import type { VersionInfo } from "@/lib/db/types";

const head = (marker: string | null, reason: VersionInfo["reason"]): VersionInfo => ({
  marker_invocation_id: marker,
  timestamp: "2030-01-01T12:00:00.000Z",
  turns: 2,
  last_user_text: "hello",
  last_invocation_id: "e-1",
  version: null,
  reason,
  label: null,
  pinned: false,
});

describe("History's entries", () => {
  it("fold each run of heads that switching ended under its newest one", () => {
    const entries = foldSwitches([
      head(null, null),
      head("m6", "switch"),
      head("m5", "switch"),
      head("m4", "switch"),
      head("m3", "regenerate"),
      head("m2", "switch"),
      head("m1", "edit"),
    ]);
    expect(entries.map((e) => [e.version.marker_invocation_id, e.folded.map((f) => f.marker_invocation_id)])).toEqual([
      [null, []],
      ["m6", ["m5", "m4"]],
      ["m3", []],
      ["m2", []],
      ["m1", []],
    ]);
  });

  it("never fold away a head the user named or pinned", () => {
    const entries = foldSwitches([
      head("m4", "switch"),
      { ...head("m3", "switch"), label: "the blue one" },
      head("m2", "switch"),
      { ...head("m1", "switch"), pinned: true },
    ]);
    expect(entries.map((e) => e.version.marker_invocation_id)).toEqual(["m4", "m3", "m2", "m1"]);
  });

  it("say how each head ended, and when to the second today", () => {
    expect(endedBy(head(null, null))).toBe("Now");
    expect(endedBy(head("m", "switch"))).toBe("Before switching versions");
    const now = Date.parse("2030-01-01T12:30:00");
    expect(clockTime(new Date("2030-01-01T12:00:05").toISOString(), now)).toMatch(/12:00:05/);
    expect(clockTime(new Date("2029-12-30T12:00:05").toISOString(), now)).toMatch(/Dec 30, 2029/);
  });
});
