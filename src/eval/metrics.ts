// Recall@k and hit@k per category, computed and printed exactly as the LoCoMo scorer does.

/** Sums for one category. */
interface Tally {
  n: number;
  recall: Map<number, number>;
  hit: Map<number, number>;
}

/** Metrics of one evaluation: per category id and `all`, recall and hit at each k (fractions). */
export interface EvaluationMetrics {
  ks: number[];
  categories: { key: string; label: string; n: number; recall: Record<number, number>; hit: Record<number, number> }[];
}

/**
 * Accumulates per-question recall@k (share of evidence ids in the top k) and hit@k (any evidence in the top k).
 *
 * @example
 * ```ts
 * const metrics = new MetricsAccumulator([5, 10]);
 * metrics.add(4, 'single-hop', ['D1:3', 'D2:1'], ['D1:3']);
 * metrics.result().categories.at(-1); // { key: 'all', n: 1, recall: { 5: 1, 10: 1 }, ... }
 * ```
 */
export class MetricsAccumulator {
  private readonly tallies = new Map<string, Tally>();
  private readonly names = new Map<string, string>();

  constructor(readonly ks: number[]) {}

  add(category: number, categoryName: string | undefined, ranked: readonly string[], evidence: readonly string[]): void {
    const wanted = new Set(evidence);
    if (categoryName !== undefined) this.names.set(String(category), categoryName);
    for (const key of [String(category), 'all']) {
      const tally = this.tallies.get(key) ?? { n: 0, recall: new Map(), hit: new Map() };
      tally.n++;
      for (const k of this.ks) {
        let found = 0;
        for (const id of ranked.slice(0, k)) if (wanted.has(id)) found++;
        tally.recall.set(k, (tally.recall.get(k) ?? 0) + found / wanted.size);
        tally.hit.set(k, (tally.hit.get(k) ?? 0) + (found > 0 ? 1 : 0));
      }
      this.tallies.set(key, tally);
    }
  }

  result(): EvaluationMetrics {
    const keys = [...this.tallies.keys()].filter((key) => key !== 'all').sort((a, b) => Number(a) - Number(b));
    if (this.tallies.has('all')) keys.push('all');
    return {
      ks: this.ks,
      categories: keys.map((key) => {
        const tally = this.tallies.get(key) as Tally;
        return {
          key,
          label: key === 'all' ? 'overall' : `${key} ${this.names.get(key) ?? ''}`,
          n: tally.n,
          recall: Object.fromEntries(this.ks.map((k) => [k, (tally.recall.get(k) ?? 0) / tally.n])),
          hit: Object.fromEntries(this.ks.map((k) => [k, (tally.hit.get(k) ?? 0) / tally.n])),
        };
      }),
    };
  }
}

/** The metrics as the scorer prints them: one row per category, R@k then H@k, in percent with one decimal. */
export function formatMetrics(metrics: EvaluationMetrics): string {
  const pct = (x: number) => (100 * x).toFixed(1).padStart(6);
  const header = ['category'.padEnd(18), '    n', ...metrics.ks.map((k) => `  R@${k}`.padStart(6)), ...metrics.ks.map((k) => `  H@${k}`.padStart(6))].join(' ');
  const rows = metrics.categories.map((row) =>
    [row.label.padEnd(18), String(row.n).padStart(5), ...metrics.ks.map((k) => pct(row.recall[k] ?? 0)), ...metrics.ks.map((k) => pct(row.hit[k] ?? 0))].join(' '),
  );
  return [header, ...rows].join('\n');
}
