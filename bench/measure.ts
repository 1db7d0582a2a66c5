/** The median of some timings. */
export function middle(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The 95th percentile of some timings (nearest rank). */
export function p95(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)];
}

/** Median milliseconds of `runs` calls of `fn` (after one warm-up call). */
export async function median(runs: number, fn: (i: number) => unknown | Promise<unknown>): Promise<number> {
  await fn(-1);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn(i);
    times.push(performance.now() - start);
  }
  return middle(times);
}

export type Row = { operation: string; target?: string; values: Record<string, number> };

const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

/** A table of medians per size, with each size's ratio to the previous one so growth shows. */
export function table(rows: Row[], sizes: string[]): string {
  const header = ["operation", ...sizes.flatMap((s, i) => (i === 0 ? [`${s} ms`] : [`${s} ms`, `×${sizes[i - 1]}`])), "target"];
  const lines = rows.map((r) => [
    r.operation,
    ...sizes.flatMap((s, i) => {
      const v = r.values[s];
      if (v === undefined) return i === 0 ? ["–"] : ["–", ""];
      const prev = r.values[sizes[i - 1]];
      return i === 0 ? [ms(v)] : [ms(v), prev ? (v / prev).toFixed(2) : ""];
    }),
    r.target ?? "",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [fmt(header), widths.map((w) => "-".repeat(w)).join("  "), ...lines.map(fmt)].join("\n");
}

/** Two dialects' medians at one size side by side, with the ratio of the second to the first. */
export function sideBySide(first: { name: string; rows: Row[] }, second: { name: string; rows: Row[] }, size: string): string {
  const before = new Map(first.rows.map((r) => [r.operation, r.values[size]]));
  const rows: Row[] = second.rows
    .filter((r) => before.get(r.operation) !== undefined && r.values[size] !== undefined)
    .map((r) => ({
      operation: r.operation,
      target: r.target,
      values: { [first.name]: before.get(r.operation) as number, [second.name]: r.values[size] },
    }));
  return table(rows, [first.name, second.name]);
}
