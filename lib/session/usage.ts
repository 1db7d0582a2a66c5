/**
 * Tokens and cost (docs/semantics.md, "Models, tokens and cost"): what a provider reports per model call, in
 * ADK's `usage_metadata` shape, summed per turn and per chat, and priced by the model's configured price.
 */

/** ADK's `usage_metadata` (and kagent's `kagent_usage_metadata`): tokens one model call, or a sum of them, used. */
export interface UsageMetadata {
  prompt_token_count: number;
  candidates_token_count: number;
  total_token_count: number;
}

/** A model's price per million tokens, as configured (AGENTS_FILE's `price`). */
export interface Price {
  input_per_million: number;
  output_per_million: number;
  currency: string;
}

/** What tokens cost at a price, in its currency. */
export interface Cost {
  amount: number;
  currency: string;
}

const NO_USAGE: UsageMetadata = { prompt_token_count: 0, candidates_token_count: 0, total_token_count: 0 };

/** The sum of two reports. */
export function addUsage(a: UsageMetadata, b: UsageMetadata): UsageMetadata {
  return {
    prompt_token_count: a.prompt_token_count + b.prompt_token_count,
    candidates_token_count: a.candidates_token_count + b.candidates_token_count,
    total_token_count: a.total_token_count + b.total_token_count,
  };
}

const count = (value: unknown) => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.round(value) : 0);

/** A stored or received report read defensively (a hand-written event may hold anything); null when it is none. */
export function usageOf(value: unknown): UsageMetadata | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  if (!["prompt_token_count", "candidates_token_count", "total_token_count"].some((k) => k in v)) return null;
  const prompt = count(v.prompt_token_count);
  const candidates = count(v.candidates_token_count);
  return {
    prompt_token_count: prompt,
    candidates_token_count: candidates,
    total_token_count: count(v.total_token_count ?? prompt + candidates),
  };
}

/** What `usage` cost at `price`: prompt tokens at the input price, candidates at the output price. */
export function costOf(usage: UsageMetadata, price: Price): Cost {
  const amount = (usage.prompt_token_count * price.input_per_million + usage.candidates_token_count * price.output_per_million) / 1e6;
  return { amount, currency: price.currency };
}

/** A stored cost read back; null when it is none. */
export function costFrom(value: unknown): Cost | null {
  if (typeof value !== "object" || value === null) return null;
  const { amount, currency } = value as Record<string, unknown>;
  return typeof amount === "number" && Number.isFinite(amount) && typeof currency === "string" ? { amount, currency } : null;
}

/** Tokens and cost of some turns: costs add up per currency (a chat whose models are priced in two has two). */
export interface UsageTotal extends UsageMetadata {
  /** Turns that reported usage. */
  turns: number;
  costs: Cost[];
}

const EMPTY_TOTAL: UsageTotal = { ...NO_USAGE, turns: 0, costs: [] };

/** Adds one turn's usage and cost to a total. */
function addToTotal(total: UsageTotal, usage: UsageMetadata | null, cost: Cost | null): UsageTotal {
  if (!usage) return total;
  const costs = [...total.costs];
  if (cost) {
    const same = costs.findIndex((c) => c.currency === cost.currency);
    if (same >= 0) costs[same] = { currency: cost.currency, amount: costs[same].amount + cost.amount };
    else costs.push(cost);
  }
  return { ...addUsage(total, usage), turns: total.turns + 1, costs };
}

/** A chat's usage: the turns it shows now, and those of its rewound branches, apart. */
export interface ChatUsage {
  current: UsageTotal;
  rewound: UsageTotal;
}

/** Sums the turns' usage into the current head's and the rewound branches'. */
export function chatUsage(turns: readonly { current: boolean; usage: UsageMetadata | null; cost: Cost | null }[]): ChatUsage {
  let current = EMPTY_TOTAL;
  let rewound = EMPTY_TOTAL;
  for (const t of turns) {
    if (t.current) current = addToTotal(current, t.usage, t.cost);
    else rewound = addToTotal(rewound, t.usage, t.cost);
  }
  return { current, rewound };
}
