// Reciprocal Rank Fusion: merges ranked id lists from several arms by rank, not by incomparable scores.

/** The default RRF damping constant. */
export const RRF_K = 60;

/**
 * Fuses ranked id lists: score(d) = sum over arms of 1 / (k + rank), rank 1-based, absent arms add nothing.
 * Sorted by score descending; ties keep first appearance across the lists (list by list, best first).
 *
 * @example
 * ```ts
 * reciprocalRankFusion([['a', 'b'], ['b', 'c']]);
 * // [['b', 1/62 + 1/61], ['a', 1/61], ['c', 1/62]]
 * ```
 */
export function reciprocalRankFusion(rankedLists: readonly (readonly string[])[], k = RRF_K): [string, number][] {
  const scores = new Map<string, number>();
  const order = new Map<string, number>();
  for (const list of rankedLists) {
    list.forEach((id, index) => {
      if (!order.has(id)) order.set(id, order.size);
      scores.set(id, (scores.get(id) ?? 0) + 1 / (k + index + 1));
    });
  }
  return [...scores.entries()].sort((a, b) => b[1] - a[1] || (order.get(a[0]) as number) - (order.get(b[0]) as number));
}
