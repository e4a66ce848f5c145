// Window sum: a chunk's lexical score summed with its neighbours' (a reply is found by the words of what it answers).
import { grow } from './grow.js';
import { ScoreStatistics } from './score-statistics.js';
import type { ScoreSink } from './score-statistics.js';
import { TopK } from './top-k.js';

/**
 * The corpus's order of live documents as two slot chains (see slot-chain.ts): each slot's previous and next live
 * slot, -1 (or beyond the arrays) at an end.
 */
export interface SlotOrder {
  readonly previous: Int32Array;
  readonly next: Int32Array;
}

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

  /** Takes a whole arm's matches at once (`slots` must be given: a match without its slot has no window). */
  addMany(scores: Float64Array, slots: Int32Array | null, count: number): void {
    if (slots === null) throw new Error('LexicalMatches.addMany needs the slots of the scores');
    this.forward?.addMany(scores, slots, count);
    this.slots = grow(this.slots, this.count + count);
    this.scores = grow(this.scores, this.count + count);
    this.slots.set(slots.subarray(0, count), this.count);
    this.scores.set(scores.subarray(0, count), this.count);
    this.count += count;
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
 * const order = { previous: Int32Array.of(-1, 0, 1, 2, 3), next: Int32Array.of(1, 2, 3, 4, -1) };
 * const sums = windowSums({ slots: [2, 4], scores: [3, 1], count: 2 }, order, 1, 5);
 * sums.scoreOf(3); // 4
 * ```
 */
export function windowSums(
  matches: { slots: ArrayLike<number>; scores: ArrayLike<number>; count: number },
  order: SlotOrder,
  reach: number,
  slotCount: number,
  accept?: (slot: number) => boolean,
): WindowScores {
  const sums = new Float64Array(slotCount);
  const window = { sums, touched: new Int32Array(Math.min(slotCount, Math.max(64, matches.count))), count: 0 };
  // Those before a match, then those after it: the order the sums are made in, so they are the same numbers each time.
  const chains = [order.previous, order.next];
  for (let index = 0; index < matches.count; index++) {
    const slot = matches.slots[index] as number;
    const score = matches.scores[index] as number;
    if (!(score > 0)) continue;
    addTo(window, slot, score);
    for (const chain of chains) {
      let other = slot;
      for (let step = 0; step < reach; step++) {
        other = chain[other] ?? -1;
        if (other < 0) break;
        if (accept === undefined || accept(other)) addTo(window, other, score);
      }
    }
  }
  return new WindowScores(sums, window.touched, window.count);
}

/** Adds `score` to a slot's window sum, noting the slot the first time. */
function addTo(window: { sums: Float64Array; touched: Int32Array; count: number }, slot: number, score: number): void {
  const { sums } = window;
  if (sums[slot] === 0) {
    window.touched = grow(window.touched, window.count + 1);
    window.touched[window.count++] = slot;
  }
  sums[slot] = (sums[slot] as number) + score;
}

/** The window scores of one query (see `windowSums`). */
export class WindowScores {
  readonly statistics = new ScoreStatistics();

  /** `touched`: the first `count` entries are the slots with a sum, in the order they got one. */
  constructor(private readonly sums: Float64Array, private readonly touched: Int32Array, private readonly count: number) {
    const scores = new Float64Array(count);
    for (let index = 0; index < count; index++) scores[index] = sums[touched[index] as number] as number;
    this.statistics.addMany(scores, touched, count);
  }

  /** The window score of a slot (0 when no match is within reach). */
  scoreOf(slot: number): number {
    return this.sums[slot] ?? 0;
  }

  /** How many slots have a window score. */
  get size(): number {
    return this.count;
  }

  /** The `limit` best slots by window score, best first (ties: lower slot first). */
  top(limit: number): { slot: number; score: number }[] {
    const top = new TopK(limit);
    const { sums, touched } = this;
    let threshold = top.threshold;
    for (let index = 0; index < this.count; index++) {
      const slot = touched[index] as number;
      const score = sums[slot] as number;
      // Below the threshold it cannot enter (TopK.push would refuse it): skip the call.
      if (score < threshold) continue;
      top.push(slot, score);
      threshold = top.threshold;
    }
    return top.sorted();
  }
}
