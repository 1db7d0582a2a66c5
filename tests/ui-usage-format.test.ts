import { describe, expect, it } from "vitest";
import { factsLine, money, tokens, totalLine, turnFacts } from "@/components/chat/turn/usage-format";

const usage = (total: number) => ({ prompt_token_count: total - 1, candidates_token_count: 1, total_token_count: total });

describe("usage as the chat shows it", () => {
  it("counts tokens compactly and prices without rounding a cheap turn to nothing", () => {
    expect([1, 842, 1234, 12_345, 1_250_000].map(tokens)).toEqual(["1 token", "842 tokens", "1.2K tokens", "12.3K tokens", "1.3M tokens"]);
    expect(money({ amount: 0.000423, currency: "USD" })).toBe("$0.00042");
    expect(money({ amount: 0.0131, currency: "USD" })).toBe("$0.01");
    expect(money({ amount: 1.25, currency: "USD" })).toBe("$1.25");
    expect(money({ amount: 0, currency: "USD" })).toBe("$0.00");
    expect(money({ amount: 0.5, currency: "EUR" })).toBe("€0.50");
  });

  it("says which model wrote a reply, what it used and cost; totals say when nothing was reported", () => {
    const task = {
      kind: "task" as const,
      id: "t",
      contextId: "c",
      status: { state: "completed" as const },
      metadata: { retrace_model: "demo-terse", kagent_usage_metadata: usage(51), retrace_cost: { amount: 0.0001, currency: "USD" } },
    };
    expect(factsLine(turnFacts(task))).toBe("demo-terse · 51 tokens · $0.0001");
    expect(factsLine(turnFacts({ ...task, metadata: { retrace_model: "demo" } }))).toBe("demo");
    expect(factsLine(turnFacts({ ...task, metadata: {} }))).toBe("");
    expect(totalLine({ ...usage(12_345), turns: 3, costs: [{ amount: 0.012, currency: "USD" }] })).toBe("12.3K tokens ($0.01)");
    expect(totalLine({ ...usage(900), turns: 2, costs: [] })).toBe("900 tokens");
    expect(totalLine({ ...usage(0), total_token_count: 0, turns: 0, costs: [] })).toBe("no tokens");
  });
});
