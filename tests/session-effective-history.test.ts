import { describe, expect, it } from "vitest";
import { applyRewinds, markerParent, walkRewinds } from "@/lib/session/effective-history";
import type { AdkEvent, MarkerLink } from "@/lib/session/types";
import { event, texts } from "./helpers";

const user = (inv: string, text: string) => event(inv, { author: "user", text });
const model = (inv: string, text: string) => event(inv, { text });
const marker = (inv: string, target: string) => event(inv, { author: "user", rewind: target });

/** The effective history computed the store's way: from marker links only. */
function viaSegments(events: AdkEvent[]): AdkEvent[] {
  const markers: MarkerLink[] = [];
  events.forEach((e, i) => {
    const target = e.actions?.rewind_before_invocation_id;
    if (!target) return;
    const first = events.findIndex((x) => x.invocation_id === target);
    markers.push({ seq: i + 1, parent: markerParent(i + 1, first >= 0 ? first + 1 : null), invocationId: e.invocation_id });
  });
  const { segments } = walkRewinds(events.length, markers);
  return segments.flatMap(([from, to]) => events.slice(from - 1, to));
}

function expectBoth(events: AdkEvent[], expected: (string | undefined)[]) {
  expect(texts(applyRewinds(events))).toEqual(expected);
  expect(texts(viaSegments(events))).toEqual(expected);
}

describe("effective history (docs/semantics.md § Effective history)", () => {
  it("leak vector: a rewind before inv2 hides its user message too", () => {
    expectBoth([user("i1", "q1"), model("i1", "a1"), user("i2", "q2"), model("i2", "a2"), marker("m", "i2")], ["q1", "a1"]);
  });

  it("T10: turns after a rewind are kept", () => {
    expectBoth(
      [
        user("i1", "First message"),
        model("i1", "First response"),
        user("i2", "Second message"),
        model("i2", "Second response"),
        marker("m1", "i2"),
        user("i3", "Third message"),
      ],
      ["First message", "First response", "Third message"],
    );
  });

  it("a marker whose target is absent hides only itself", () => {
    expectBoth([user("i1", "q1"), marker("m", "nope"), user("i2", "q2")], ["q1", "q2"]);
  });

  it("a marker only looks before itself for its target", () => {
    expectBoth([user("i1", "q1"), marker("m", "i2"), user("i2", "q2")], ["q1", "q2"]);
  });

  it("rewinding the first invocation empties the history", () => {
    expectBoth([user("i1", "q1"), model("i1", "a1"), marker("m", "i1")], []);
  });

  it("undo: rewinding before a marker's invocation restores what it hid", () => {
    expectBoth([user("i1", "q1"), user("i2", "q2"), user("i3", "q3"), marker("m1", "i2"), marker("m2", "m1")], ["q1", "q2", "q3"]);
  });

  it("redo: rewinding the undo hides the turns again", () => {
    expectBoth([user("i1", "q1"), user("i2", "q2"), marker("m1", "i2"), marker("m2", "m1"), marker("m3", "m2")], ["q1"]);
  });

  it("stacked rewinds: a rewind to an earlier point, then new turns", () => {
    expectBoth(
      [user("i1", "q1"), user("i2", "q2"), user("i3", "q3"), marker("m1", "i3"), user("i4", "q4"), marker("m2", "i2"), user("i5", "q5")],
      ["q1", "q5"],
    );
  });

  it("a marker inside a hidden range has no effect", () => {
    expectBoth([user("i1", "q1"), user("i2", "q2"), user("i3", "q3"), marker("m1", "i3"), user("i4", "q4"), marker("m2", "i2")], ["q1"]);
  });

  it("rewinding to an invocation that an earlier rewind already hid", () => {
    // i3 is hidden by m1; rewinding before i3 again hides everything from i3 to the new marker.
    expectBoth(
      [user("i1", "q1"), user("i2", "q2"), user("i3", "q3"), marker("m1", "i2"), user("i4", "q4"), marker("m2", "i3")],
      ["q1", "q2"],
    );
  });

  it("agrees with ADK's walk on random logs", () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 300; round++) {
      const events: AdkEvent[] = [];
      const invocations: string[] = [];
      for (let i = 0; i < 30; i++) {
        if (invocations.length && rand(4) === 0) {
          const target = rand(5) === 0 ? "missing" : invocations[rand(invocations.length)];
          const inv = `m${i}`;
          invocations.push(inv);
          events.push(marker(inv, target));
        } else {
          const inv = `i${i}`;
          invocations.push(inv);
          events.push(user(inv, `q${i}`));
          if (rand(2)) events.push(model(inv, `a${i}`));
        }
      }
      expect(texts(viaSegments(events))).toEqual(texts(applyRewinds(events)));
    }
  });

  it("attributes every hidden seq to exactly one rewind range", () => {
    const layout = walkRewinds(10, [
      { seq: 5, parent: 2, invocationId: "m1" },
      { seq: 9, parent: 6, invocationId: "m2" },
    ]);
    expect(layout.segments).toEqual([
      [1, 2],
      [6, 6],
      [10, 10],
    ]);
    expect(layout.rewound.map((r) => [r.from, r.to, r.markerInvocationId])).toEqual([
      [3, 5, "m1"],
      [7, 9, "m2"],
    ]);
  });
});
