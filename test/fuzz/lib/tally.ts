/** Counts by category and value, printed at the end of a fuzz run so its coverage shows in the TAP output. */
export class Tally {
  private readonly counts = new Map<string, Map<string, number>>();

  add(category: string, value: string | number): void {
    let m = this.counts.get(category);
    if (!m) this.counts.set(category, (m = new Map()));
    const key = String(value);
    m.set(key, (m.get(key) ?? 0) + 1);
  }

  get(category: string, value: string | number): number | undefined {
    return this.counts.get(category)?.get(String(value));
  }

  total(category: string): number {
    let n = 0;
    for (const v of this.counts.get(category)?.values() ?? []) n += v;
    return n;
  }

  /** One line per category, values by descending count: `code: ok 120, BAD_SIGNATURE 80`. */
  lines(): string[] {
    return [...this.counts].map(([category, m]) => `${category}: ${[...m].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ')}`);
  }
}
