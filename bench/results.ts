import { type Row, table } from "./measure";

/** The medians of one run, by operation and size. */
export class Results {
  private rows = new Map<string, Row>();

  record(operation: string, size: string, value: number, target?: string) {
    const row = this.rows.get(operation) ?? { operation, target, values: {} };
    row.values[size] = value;
    this.rows.set(operation, row);
  }

  all(): Row[] {
    return [...this.rows.values()];
  }

  table(sizes: string[]): string {
    return table(this.all(), sizes);
  }
}
