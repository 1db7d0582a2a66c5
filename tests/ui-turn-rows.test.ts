import { describe, expect, it } from "vitest";
import { describeRewind, timeAgo, turnRows } from "@/components/chat/turn/turn-rows";
import { readableError } from "@/components/ui/readable-error";
import type { Task } from "@/lib/task/types";

const task = (id: string, rewound?: { by: string; reason?: string }): Task => ({
  kind: "task",
  id,
  contextId: "c",
  status: { state: "completed" },
  metadata: rewound
    ? {
        kagent_invocation_id: id,
        rewound: true,
        rewound_by: rewound.by,
        rewound_at: "2030-01-01T00:00:00.000Z",
        rewound_reason: rewound.reason,
      }
    : { kagent_invocation_id: id },
});

describe("turnRows", () => {
  it("puts a divider above each run of turns one marker hid, and none above visible turns", () => {
    const rows = turnRows([
      task("a"),
      task("b", { by: "m1" }),
      task("c", { by: "m1" }),
      task("d"),
      task("e", { by: "m2" }),
      task("f", { by: "m1" }),
    ]);
    expect(rows.map((r) => r.divider)).toEqual([false, true, false, false, true, true]);
    expect(rows[1].rewound).toEqual({ markerInvocationId: "m1", at: "2030-01-01T00:00:00.000Z", reason: "rewind" });
  });

  it("reads the reason, and falls back to a rewind for one it does not know", () => {
    expect(turnRows([task("a", { by: "m", reason: "edit" })])[0].rewound?.reason).toBe("edit");
    expect(turnRows([task("a", { by: "m", reason: "bogus" })])[0].rewound?.reason).toBe("rewind");
  });
});

describe("describeRewind", () => {
  const at = "2030-01-01T00:00:00.000Z";
  const now = Date.parse(at);
  it("says why and when", () => {
    expect(describeRewind({ markerInvocationId: "m", at, reason: "edit" }, now + 5 * 60_000)).toBe("Replaced by an edit 5 minutes ago");
    expect(describeRewind({ markerInvocationId: "m", at, reason: "rewind" }, now + 10_000)).toBe("Rewound just now");
    expect(describeRewind({ markerInvocationId: "m", at: null, reason: "regenerate" })).toBe("Replaced by Regenerate");
  });

  it("counts hours and days", () => {
    expect(timeAgo(at, now + 3 * 3_600_000)).toBe("3 hours ago");
    expect(timeAgo(at, now + 86_400_000 + 1000)).toBe("yesterday");
  });
});

describe("readableError", () => {
  it("turns a network failure into words a person can act on, and keeps the server's messages", () => {
    expect(readableError(new TypeError("Failed to fetch"))).toBe("Couldn't reach the server — check your connection");
    expect(readableError(new TypeError("NetworkError when attempting to fetch resource."))).toMatch(/Couldn't reach the server/);
    expect(readableError(new Error("Invocation ID not found: e-1"))).toBe("Invocation ID not found: e-1");
    expect(readableError("plain")).toBe("plain");
  });
});
