import { describe, expect, it } from "vitest";
import { actedFrom, actedFromSiblingOf, actedOffPath, decisionData } from "@/components/chat/tools/tool-effects";
import type { ChatTree } from "@/lib/session/tree";
import type { Task } from "@/lib/task/types";

/** A turn of the current view: its invocation, the calls of it that acted in the world, its versions. */
const turn = (id: string, acted = 0, siblings?: string[]): Task => ({
  kind: "task",
  id: `t-${id}`,
  contextId: "c",
  status: { state: "completed" },
  metadata: {
    kagent_invocation_id: id,
    ...(acted ? { retrace_external_calls: acted } : {}),
    ...(siblings ? { retrace_siblings: { index: siblings.indexOf(id) + 1, invocation_ids: siblings, regenerations: false } } : {}),
  },
});

const tree = (parents: Record<string, string | null>): ChatTree => ({
  turns: Object.entries(parents).map(([id, parent]) => ({
    invocation_id: id,
    parent_invocation_id: parent,
    text: id,
    reply: "",
    timestamp: "",
    current: true,
    sibling_index: 1,
    sibling_count: 1,
    label: null,
    pinned: false,
    model: null,
    usage: null,
    cost: null,
  })),
  forks: [],
  source: null,
  usage: { current: { ...NO_TOKENS, turns: 0, costs: [] }, rewound: { ...NO_TOKENS, turns: 0, costs: [] } },
});

const NO_TOKENS = { prompt_token_count: 0, candidates_token_count: 0, total_token_count: 0 };

describe("what a rewind would leave done in the world", () => {
  // A → B (2 calls acted) → C (1), and B2 a rewound version of B, with D below it.
  const view = [turn("A"), turn("B", 2, ["B2", "B"]), turn("C", 1)];
  const parents = tree({ A: null, B2: "A", D: "B2", B: "A", C: "B" });

  it("Rewind to here, Edit & resend, Regenerate: that turn and every later one", () => {
    expect(actedFrom(view, "A")).toBe(3);
    expect(actedFrom(view, "C")).toBe(1);
    expect(actedFrom(view, "missing")).toBe(0);
  });

  it("the version pager: the version shown now and every later turn", () => {
    expect(actedFromSiblingOf(view, "B2")).toBe(3);
  });

  it("History's Restore and the map's click: the turns off the target's path", () => {
    expect(actedOffPath(view, parents, "D")).toBe(3);
    expect(actedOffPath(view, parents, "A")).toBe(3);
    expect(actedOffPath(view, parents, null)).toBe(3);
    expect(actedOffPath(view, parents, "C")).toBe(0);
    // A turn the chat shows now: switching to it changes nothing.
    expect(actedOffPath(view, parents, "B", true)).toBe(0);
  });
});

describe("the decision the cards send", () => {
  it("one call: approve (with always allow) or reject with its reason; several: a batch by call id", () => {
    expect(decisionData(new Map([["c1", { approve: true, always: true }]]))).toEqual({
      decision_type: "approve",
      retrace_always_allow: true,
    });
    expect(decisionData(new Map([["c1", { approve: false, reason: "no" }]]))).toEqual({ decision_type: "reject", rejection_reason: "no" });
    expect(
      decisionData(
        new Map([
          ["c1", { approve: true }],
          ["c2", { approve: false, reason: "later" }],
        ]),
      ),
    ).toEqual({ decision_type: "batch", decisions: { c1: "approve", c2: "reject" }, rejection_reasons: { c2: "later" } });
  });
});
