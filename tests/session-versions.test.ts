import { describe, expect, it } from "vitest";
import { markerParent } from "@/lib/session/effective-history";
import { recordedVersions, rewindArtifactPlan, rewindStateDelta } from "@/lib/session/rewind";
import { parseState, replayState } from "@/lib/session/state";
import { buildInvocationTree, latestHeadShowing, tailAfterMarker, tailOf } from "@/lib/session/versions";

/** A log from a script: letters are turns (two events each), `>X` a rewind marker before X. */
function log(script: string[]) {
  const events: { seq: number; invocationId: string; markerParent: number | null }[] = [];
  const first = new Map<string, number>();
  for (const [i, step] of script.entries()) {
    if (step.startsWith(">")) {
      const seq = events.length + 1;
      events.push({ seq, invocationId: `M${i}`, markerParent: markerParent(seq, first.get(step.slice(1)) ?? null) });
    } else {
      first.set(step, events.length + 1);
      events.push({ seq: events.length + 1, invocationId: step, markerParent: null });
      events.push({ seq: events.length + 1, invocationId: step, markerParent: null });
    }
  }
  return {
    events,
    first,
    markers: events
      .filter((e) => e.markerParent !== null)
      .map((e) => ({ seq: e.seq, parent: e.markerParent as number, invocationId: e.invocationId })),
  };
}

describe("the invocation tree", () => {
  it("records each turn's parent and each marker's ended head (the reference vector)", () => {
    // send A, B; edit B → M1, send B2; regenerate B2 → M2, send B3
    const { events } = log(["A", "B", ">B", "B2", ">B2", "B3"]);
    const { nodes, tailSeq } = buildInvocationTree(events);
    const by = Object.fromEntries(nodes.map((n) => [n.invocationId, n]));
    expect([by.A.afterInvocationId, by.B.afterInvocationId, by.B2.afterInvocationId, by.B3.afterInvocationId]).toEqual([
      null,
      "A",
      "A",
      "A",
    ]);
    expect([by.A.depth, by.B.depth, by.B2.depth, by.B3.depth]).toEqual([1, 2, 2, 2]);
    expect([by.M2.afterInvocationId, by.M2.depth, by.M2.isMarker]).toEqual(["B", 2, true]);
    expect([by.M4.afterInvocationId, by.M4.depth]).toEqual(["B2", 2]);
    expect(tailSeq).toBe(events.length);
  });

  it("a rewind to the very start leaves an empty tail; the next turn is a root again", () => {
    const { events } = log(["A", ">A", "C"]);
    const { nodes } = buildInvocationTree(events);
    expect(nodes.map((n) => [n.invocationId, n.afterInvocationId, n.depth])).toEqual([
      ["A", null, 1],
      ["M1", "A", 1],
      ["C", null, 1],
    ]);
    expect(buildInvocationTree(log(["A", ">A"]).events).tailSeq).toBe(0);
  });

  it("finds the latest head that showed an invocation, through nested hidden ranges", () => {
    const { first, markers } = log(["A", "B", "C", ">C", "D", ">B", "E"]);
    const lastSeq = 12;
    expect(tailOf(lastSeq, markers)).toBe(lastSeq);
    expect(latestHeadShowing(first.get("C") as number, markers)).toBe("M3");
    expect(latestHeadShowing(first.get("D") as number, markers)).toBe("M5");
    expect(latestHeadShowing(first.get("B") as number, markers)).toBe("M5");
  });

  it("the tail right after each marker, stepping over markers only, is the walk's", () => {
    const scripts = [
      ["A", "B", "C", ">C", "D", ">B", "E"],
      ["A", ">A", ">A", "B", ">B"],
      ["A", "B", ">B", ">M2", ">A", ">M4", "C"],
    ];
    for (const script of scripts) {
      const { markers } = log(script);
      const links = new Map<number, number>();
      for (const m of markers) {
        links.set(m.seq, m.parent);
        const earlier = markers.filter((k) => k.seq <= m.seq);
        expect({ script, seq: m.seq, tail: tailAfterMarker(m.parent, links) }).toEqual({
          script,
          seq: m.seq,
          tail: tailOf(m.seq, earlier),
        });
      }
    }
  });
});

describe("names are data in the domain functions", () => {
  it("state deltas and replays keep prototype names as plain keys", () => {
    const current = parseState('{"constructor":1,"__proto__":{"x":1}}');
    const delta = rewindStateDelta(current, parseState('{"toString":"a"}'));
    expect(JSON.stringify(delta)).toBe('{"toString":"a","constructor":null,"__proto__":null}');
    const replayed = replayState(parseState("{}"), [JSON.parse('{"__proto__":{"p":1},"valueOf":2}')]);
    expect(JSON.stringify(replayed)).toBe('{"__proto__":{"p":1},"valueOf":2}');
    expect(Object.getPrototypeOf(replayed)).toBeNull();
  });

  it("file versions are a Map: a file named constructor is just a file", () => {
    const current = recordedVersions([{ constructor: 0 }, JSON.parse('{"__proto__":1}')]);
    expect(rewindArtifactPlan(current, recordedVersions([]))).toEqual([
      { filename: "__proto__", restore: null },
      { filename: "constructor", restore: null },
    ]);
  });
});
