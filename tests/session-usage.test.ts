import { describe, expect, it } from "vitest";
import { addUsage, chatUsage, costFrom, costOf, usageOf } from "@/lib/session/usage";

const usage = (prompt: number, candidates: number) => ({
  prompt_token_count: prompt,
  candidates_token_count: candidates,
  total_token_count: prompt + candidates,
});

describe("tokens and cost (pure)", () => {
  it("adds reports, and prices prompt tokens at the input price and candidates at the output price", () => {
    expect(addUsage(usage(10, 2), usage(5, 1))).toEqual(usage(15, 3));
    expect(costOf(usage(1_000_000, 500_000), { input_per_million: 0.15, output_per_million: 0.6, currency: "USD" })).toEqual({
      amount: 0.45,
      currency: "USD",
    });
  });

  it("reads stored reports defensively: a hand-written event may hold anything", () => {
    expect(usageOf(usage(3, 4))).toEqual(usage(3, 4));
    expect(usageOf({ prompt_token_count: 3, candidates_token_count: 4 })).toEqual(usage(3, 4));
    expect(usageOf({ prompt_token_count: -3, candidates_token_count: "4", total_token_count: 2.6 })).toEqual({
      prompt_token_count: 0,
      candidates_token_count: 0,
      total_token_count: 3,
    });
    for (const value of [null, undefined, 7, "x", [], {}, { tokens: 3 }]) expect(usageOf(value)).toBeNull();
    expect(costFrom({ amount: 0.5, currency: "EUR" })).toEqual({ amount: 0.5, currency: "EUR" });
    for (const value of [null, { amount: "1", currency: "USD" }, { amount: 1 }]) expect(costFrom(value)).toBeNull();
  });

  it("totals a chat's turns: the head shown now apart from the rewound branches, costs per currency, unknown usage not counted", () => {
    const usd = (amount: number) => ({ amount, currency: "USD" });
    const totals = chatUsage([
      { current: true, usage: usage(10, 5), cost: usd(1) },
      { current: false, usage: usage(7, 3), cost: usd(2) },
      { current: true, usage: usage(1, 1), cost: { amount: 3, currency: "EUR" } },
      { current: true, usage: usage(2, 2), cost: usd(0.5) },
      { current: false, usage: null, cost: null },
      { current: true, usage: usage(4, 0), cost: null },
    ]);
    expect(totals).toEqual({
      current: { ...usage(17, 8), turns: 4, costs: [usd(1.5), { amount: 3, currency: "EUR" }] },
      rewound: { ...usage(7, 3), turns: 1, costs: [usd(2)] },
    });
  });
});
