import { type Cost, costFrom, type Price, type UsageMetadata, type UsageTotal, usageOf } from "@/lib/session/usage";
import type { Task } from "@/lib/task/types";

const compact = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });

/** "842 tokens", "1.2K tokens", "12.3K tokens", "1 token". */
export function tokens(count: number): string {
  return `${count < 1000 ? count : compact.format(count)} token${count === 1 ? "" : "s"}`;
}

/** "$0.00042", "$0.013", "$1.25", "€0.50": small amounts keep two significant digits, so a cheap turn is not "$0.00". */
export function money({ amount, currency }: Cost): string {
  const small = amount > 0 && amount < 0.01;
  return new Intl.NumberFormat("en", {
    style: "currency",
    currency,
    ...(small ? { maximumSignificantDigits: 2 } : { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
  }).format(amount);
}

/** A total's costs, one per currency: "$0.013", "$0.01 + €0.20"; empty when nothing was priced. */
const moneyOf = (costs: readonly Cost[]) => costs.map(money).join(" + ");

/** What a turn's task says of its model, usage and cost (docs/api.md: `retrace_model`, `kagent_usage_metadata`, `retrace_cost`). */
export function turnFacts(task: Task): { model: string | null; usage: UsageMetadata | null; cost: Cost | null } {
  const model = task.metadata?.retrace_model;
  return {
    model: typeof model === "string" ? model : null,
    usage: usageOf(task.metadata?.kagent_usage_metadata),
    cost: costFrom(task.metadata?.retrace_cost),
  };
}

/** One line for a reply or a version: "demo-terse · 51 tokens · $0.0001"; empty when nothing is known. */
export function factsLine(facts: { model: string | null; usage: UsageMetadata | null; cost: Cost | null }): string {
  return [facts.model, facts.usage && tokens(facts.usage.total_token_count), facts.cost && money(facts.cost)].filter(Boolean).join(" · ");
}

/** "12.3K tokens ($0.01)" for a total; "no tokens" when its turns reported none. */
export function totalLine(total: UsageTotal): string {
  if (total.turns === 0) return "no tokens";
  const cost = moneyOf(total.costs);
  return cost ? `${tokens(total.total_token_count)} (${cost})` : tokens(total.total_token_count);
}

/** A model's price as a menu shows it: "$0.15 in · $0.60 out per million tokens". */
export const priceLine = (price: Price) =>
  `${money({ amount: price.input_per_million, currency: price.currency })} in · ${money({ amount: price.output_per_million, currency: price.currency })} out per million tokens`;
