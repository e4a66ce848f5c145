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
  /**
   * True when every slot below the slot count is live, so the chains are plain counting (a slot's previous is
   * slot - 1, its next slot + 1): window sums then step by arithmetic instead of reading the chains.
   */
  readonly dense?: boolean;
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
  slots: Int32Array;
  scores: Float64Array;
  count = 0;

  constructor(private readonly forward?: ScoreSink) {
    // The arrays the last query released, else small new ones.
    const spare = spareMatches;
    spareMatches = null;
    this.slots = spare?.slots ?? new Int32Array(64);
    this.scores = spare?.scores ?? new Float64Array(64);
  }

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

  /** Lends the arrays to the next query's matches once these are read (the window sums made); nothing is read after. */
  release(): void {
    if (spareMatches === null || spareMatches.slots.length < this.slots.length) spareMatches = { slots: this.slots, scores: this.scores };
    this.slots = EMPTY_SLOTS;
    this.scores = EMPTY_SCORES;
    this.count = 0;
  }
}

const EMPTY_SLOTS = new Int32Array(0);
const EMPTY_SCORES = new Float64Array(0);
/** The arrays of the last query's matches, kept for the next one (one pair per process, as the window sums' below). */
let spareMatches: { slots: Int32Array; scores: Float64Array } | null = null;

/**
 * The window score of every accepted slot within `reach` places of a lexical match: the sum of the lexical
 * scores of the matches from `reach` places before it to `reach` after it, itself included. Only slots near a
 * match get a score, so the cost is O(matches x reach). The statistics (mean, deviation) are those of every
 * positive window score, for z-score fusion; `top(limit)` gives the arm's candidates. Same input, same output.
 * The sums live in corpus-sized scratch arrays lent for the query: `release()` hands them back (cleared) for the
 * next query, so a query allocates nothing the size of the corpus.
 *
 * @example
 * ```ts
 * // slots 0..4 in order, a match at 2 (score 3) and at 4 (score 1)
 * const order = { previous: Int32Array.of(-1, 0, 1, 2, 3), next: Int32Array.of(1, 2, 3, 4, -1) };
 * const sums = windowSums({ slots: [2, 4], scores: [3, 1], count: 2 }, order, 1, 5);
 * sums.scoreOf(3); // 4
 * sums.release();
 * ```
 */
export function windowSums(
  matches: { slots: ArrayLike<number>; scores: ArrayLike<number>; count: number },
  order: SlotOrder,
  reach: number,
  slotCount: number,
  accept?: (slot: number) => boolean,
): WindowScores {
  // No slot is noted twice in `touched`.
  const { sums, touched } = borrowScratch(slotCount);
  const { previous, next } = order;
  const matchSlots = matches.slots;
  const matchScores = matches.scores;
  let count = 0;
  if (order.dense === true && accept === undefined) {
    // The same additions in the same order as the loop below, the neighbours found by counting.
    for (let index = 0; index < matches.count; index++) {
      const slot = matchSlots[index] as number;
      const score = matchScores[index] as number;
      if (!(score > 0)) continue;
      if (sums[slot] === 0) touched[count++] = slot;
      sums[slot] = (sums[slot] as number) + score;
      const first = Math.max(0, slot - reach);
      for (let other = slot - 1; other >= first; other--) {
        if (sums[other] === 0) touched[count++] = other;
        sums[other] = (sums[other] as number) + score;
      }
      const last = Math.min(slotCount - 1, slot + reach);
      for (let other = slot + 1; other <= last; other++) {
        if (sums[other] === 0) touched[count++] = other;
        sums[other] = (sums[other] as number) + score;
      }
    }
    return new WindowScores(sums, touched, count);
  }
  // Each match adds to itself, then to those before it, then to those after it: the order the sums are made in,
  // so they are the same numbers each time.
  for (let index = 0; index < matches.count; index++) {
    const slot = matchSlots[index] as number;
    const score = matchScores[index] as number;
    if (!(score > 0)) continue;
    if (sums[slot] === 0) touched[count++] = slot;
    sums[slot] = (sums[slot] as number) + score;
    let other = slot;
    for (let step = 0; step < reach; step++) {
      other = previous[other] ?? -1;
      if (other < 0) break;
      if (accept !== undefined && !accept(other)) continue;
      if (sums[other] === 0) touched[count++] = other;
      sums[other] = (sums[other] as number) + score;
    }
    other = slot;
    for (let step = 0; step < reach; step++) {
      other = next[other] ?? -1;
      if (other < 0) break;
      if (accept !== undefined && !accept(other)) continue;
      if (sums[other] === 0) touched[count++] = other;
      sums[other] = (sums[other] as number) + score;
    }
  }
  return new WindowScores(sums, touched, count);
}

/** The arrays of one query's window sums: a sum per slot (zero for none) and the slots with a sum, in the order they got one. */
interface WindowScratch {
  sums: Float64Array;
  touched: Int32Array;
}

/** The cleared arrays of the last query, kept for the next one (one pair per process: queries seldom overlap). */
let spareScratch: WindowScratch | null = null;

/** Cleared arrays for `slotCount` slots: the spare ones when big enough, else new ones. */
function borrowScratch(slotCount: number): WindowScratch {
  const spare = spareScratch;
  if (spare !== null && spare.sums.length >= slotCount) {
    spareScratch = null;
    return spare;
  }
  return { sums: new Float64Array(slotCount), touched: new Int32Array(Math.max(1, slotCount)) };
}

/** The window scores of one query (see `windowSums`). */
export class WindowScores {
  readonly statistics = new ScoreStatistics();
  private released = false;

  /** `touched`: the first `count` entries are the slots with a sum, in the order they got one. */
  constructor(private readonly sums: Float64Array, private readonly touched: Int32Array, private readonly count: number) {
    // ScoreStatistics.addMany's sums, in the same order, read in place.
    let sum = 0;
    let sumOfSquares = 0;
    for (let index = 0; index < count; index++) {
      const score = sums[touched[index] as number] as number;
      sum += score;
      sumOfSquares += score * score;
    }
    this.statistics.count = count;
    this.statistics.sum = sum;
    this.statistics.sumOfSquares = sumOfSquares;
  }

  /** The window score of a slot (0 when no match is within reach). */
  scoreOf(slot: number): number {
    if (this.released) throw new Error('WindowScores.scoreOf after release');
    return this.sums[slot] ?? 0;
  }

  /** How many slots have a window score. */
  get size(): number {
    return this.count;
  }

  /** The `limit` best slots by window score, best first (ties: lower slot first). */
  top(limit: number): { slot: number; score: number }[] {
    if (this.released) throw new Error('WindowScores.top after release');
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

  /** Clears the sums and lends them to the next query; the scores are not read after this (a second call does nothing). */
  release(): void {
    if (this.released) return;
    this.released = true;
    const { sums, touched, count } = this;
    // Clearing the touched slots one by one costs less than clearing the whole array only while they are few.
    if (count * 8 < sums.length) for (let index = 0; index < count; index++) sums[touched[index] as number] = 0;
    else sums.fill(0);
    if (spareScratch === null || spareScratch.sums.length < sums.length) spareScratch = { sums, touched };
  }
}
