// Window sum: a chunk's lexical score summed with its neighbours' (a reply is found by the words of what it answers).
import { grow } from './grow.js';
import { ScoreStatistics } from './score-statistics.js';
import type { ScoreSink } from './score-statistics.js';
import { TopK } from './top-k.js';

/** The neighbouring live slot of `slot` before (-1) or after (+1) it in the corpus's order, or null at an end. */
export type NeighbourOf = (slot: number, direction: -1 | 1) => number | null;

/** Window-sum settings: the chunks within `reach` places on each side, the arm's `weight` in z-score fusion. */
export interface WindowSumOptions {
  reach: number;
  weight: number;
}

/**
 * Collects the lexical arm's accepted matches (slot and score) while passing each score on to the arm's
 * statistics, so the window sums need no second pass over the postings.
 *
 * @example
 * ```ts
 * const matches = new LexicalMatches(statistics);
 * index.lexical(terms, 50, accept, undefined, matches); // matches.count: every accepted match
 * ```
 */
export class LexicalMatches implements ScoreSink {
  slots = new Int32Array(64);
  scores = new Float64Array(64);
  count = 0;

  constructor(private readonly forward?: ScoreSink) {}

  add(score: number, slot: number): void {
    this.forward?.add(score, slot);
    if (this.count === this.slots.length) {
      this.slots = grow(this.slots, this.count + 1);
      this.scores = grow(this.scores, this.count + 1);
    }
    this.slots[this.count] = slot;
    this.scores[this.count++] = score;
  }
}

/**
 * The window score of every accepted slot within `reach` places of a lexical match: the sum of the lexical
 * scores of the matches from `reach` places before it to `reach` after it, itself included. Only slots near a
 * match get a score, so the cost is O(matches x reach). The statistics (mean, deviation) are those of every
 * positive window score, for z-score fusion; `top(limit)` gives the arm's candidates. Same input, same output.
 *
 * @example
 * ```ts
 * // slots 0..4 in order, a match at 2 (score 3) and at 4 (score 1)
 * const neighbourOf = (slot: number, direction: -1 | 1) => (slot + direction >= 0 && slot + direction <= 4 ? slot + direction : null);
 * const sums = windowSums({ slots: [2, 4], scores: [3, 1], count: 2 }, neighbourOf, 1, 5);
 * sums.scoreOf(3); // 4
 * ```
 */
export function windowSums(
  matches: { slots: ArrayLike<number>; scores: ArrayLike<number>; count: number },
  neighbourOf: NeighbourOf,
  reach: number,
  slotCount: number,
  accept?: (slot: number) => boolean,
): WindowScores {
  const sums = new Float64Array(slotCount);
  const touched: number[] = [];
  const add = (slot: number, score: number) => {
    if (sums[slot] === 0) touched.push(slot);
    sums[slot] = (sums[slot] as number) + score;
  };
  for (let index = 0; index < matches.count; index++) {
    const slot = matches.slots[index] as number;
    const score = matches.scores[index] as number;
    if (!(score > 0)) continue;
    add(slot, score);
    for (const direction of [-1, 1] as const) {
      let other: number | null = slot;
      for (let step = 0; step < reach; step++) {
        other = neighbourOf(other, direction);
        if (other === null) break;
        if (accept === undefined || accept(other)) add(other, score);
      }
    }
  }
  return new WindowScores(sums, touched);
}

/** The window scores of one query (see `windowSums`). */
export class WindowScores {
  readonly statistics = new ScoreStatistics();

  constructor(private readonly sums: Float64Array, private readonly touched: readonly number[]) {
    for (const slot of touched) this.statistics.add(sums[slot] as number, slot);
  }

  /** The window score of a slot (0 when no match is within reach). */
  scoreOf(slot: number): number {
    return this.sums[slot] ?? 0;
  }

  /** How many slots have a window score. */
  get size(): number {
    return this.touched.length;
  }

  /** The `limit` best slots by window score, best first (ties: lower slot first). */
  top(limit: number): { slot: number; score: number }[] {
    const top = new TopK(limit);
    for (const slot of this.touched) top.push(slot, this.sums[slot] as number);
    return top.sorted();
  }
}
