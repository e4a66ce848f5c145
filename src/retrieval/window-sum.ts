// Window sum: a chunk's lexical score summed with its neighbours' (a reply is found by the words of what it answers).

/** The neighbouring live slot of `slot` before (-1) or after (+1) it in insertion order, or null at an end. */
export type NeighbourOf = (slot: number, direction: -1 | 1) => number | null;

/**
 * The window score of every slot within `reach` chunks of a lexical match: the sum of the lexical scores of the
 * slots from `reach` before it to `reach` after it, itself included. Only slots next to a match get a score, so
 * the cost is O(matches x reach). Same input, same map order (first match first), so ties stay deterministic.
 *
 * @example
 * ```ts
 * // slots 0..4 in order, a match at 2 (score 3) and at 4 (score 1)
 * const neighbourOf = (slot: number, direction: -1 | 1) => (slot + direction >= 0 && slot + direction <= 4 ? slot + direction : null);
 * windowSums([{ slot: 2, score: 3 }, { slot: 4, score: 1 }], neighbourOf, 1);
 * // Map { 2 => 3, 1 => 3, 3 => 4, 4 => 1 }
 * ```
 */
export function windowSums(matches: readonly { slot: number; score: number }[], neighbourOf: NeighbourOf, reach: number): Map<number, number> {
  const sums = new Map<number, number>();
  const add = (slot: number, score: number) => sums.set(slot, (sums.get(slot) ?? 0) + score);
  for (const { slot, score } of matches) {
    if (score === 0) continue;
    add(slot, score);
    for (const direction of [-1, 1] as const) {
      let other: number | null = slot;
      for (let step = 0; step < reach; step++) {
        other = neighbourOf(other, direction);
        if (other === null) break;
        add(other, score);
      }
    }
  }
  return sums;
}
