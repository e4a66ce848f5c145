// Window sum: a chunk's lexical score summed with its neighbours' (a reply is found by the words of what it answers).
import type { ScoredBlocks } from './block-bounds.js';
import { grow } from './grow.js';
import { ScoreStatistics } from './score-statistics.js';
import type { ScoreSink } from './score-statistics.js';
import { TopK } from './top-k.js';
import { windowMayReach } from './window-may-reach.js';

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

/** A little below 1: the window bound's margin for rounding (see `prunedWindows`). */
const WINDOW_SAFETY = 1 - 1e-9;

/** Per-slot memo of one query's pruned windows: a lexical score or window sum is known when its stamp is the query's. */
interface WindowMemo {
  lexical: Float64Array;
  lexicalStamp: Int32Array;
  window: Float64Array;
  windowStamp: Int32Array;
  stamp: number;
}

/** The memo of the last query, kept for the next one (stamps make clearing needless). */
let spareMemo: WindowMemo | null = null;

function borrowMemo(slotCount: number): WindowMemo {
  const spare = spareMemo;
  if (spare !== null && spare.lexical.length >= slotCount && spare.stamp < 0x7ffffff0) {
    spareMemo = null;
    spare.stamp++;
    return spare;
  }
  const size = Math.max(1, slotCount);
  return { lexical: new Float64Array(size), lexicalStamp: new Int32Array(size), window: new Float64Array(size), windowStamp: new Int32Array(size), stamp: 1 };
}

/** A window arm's candidates and how it scores any slot (see `prunedWindows` and `exhaustiveWindows`). */
export interface WindowArm {
  /** The best slots by window sum, best first (ties: lower slot first). */
  readonly results: { slot: number; score: number }[];
  /** A live slot's window sum (0 with no match within reach, or for a slot the filter refuses). */
  scoreOf(slot: number): number;
  /** Hands the arrays back for the next query; `scoreOf` is not called after. */
  release(): void;
}

/** Every lexical score of a query at once: `scores[slot]` (zero for no match), the first `count` of `touched` the scored slots. */
export interface DenseScores {
  readonly scores: Float64Array;
  readonly touched: Int32Array;
  readonly count: number;
}

/**
 * The best `limit` window sums, exactly as summing every match's score into its neighbours' windows in slot order
 * gives them (`exhaustiveWindows`), without summing every window. A window is the sum of the lexical scores of the
 * 2 x reach + 1 places around a slot, so it is at most 2 x reach + 1 times the best of them: with W the
 * `limit`-th best window around the lexical arm's best `limit` matches (`head`; a lower bound of the true
 * `limit`-th best), every window at least W has a match scoring at least W / (2 x reach + 1) within reach. The
 * windows around those matches are summed, the others not. With fewer than `limit` matches, the head holds them
 * all and so do the windows around it. `dense` is read during the call only; `scoreOf` sums any later window
 * from `score` (a slot's lexical score, the same double). With `blocks` (a head search's, `Bm25Index.searchHead`;
 * a dense order and no filter), `dense` holds the scores of the blocks scored: a place of a skipped block is scored
 * (its block) before it is read, and instead of a pass over every slot the blocks are read best first by the bound
 * of their windows (`blocks.visitWindowBlocks`), each window summed exactly raising the floor, until no block left
 * can reach it (`windowMayReach` picks a block's slots whose window may).
 *
 * @example
 * ```ts
 * const arm = prunedWindows(dense, index.bm25.slotScorer(terms, weights), head, index.order, 2, 100, index.bm25.slots);
 * arm.results; // the 100 best windows
 * arm.release();
 * ```
 */
export function prunedWindows(
  dense: DenseScores,
  score: (slot: number) => number,
  head: readonly { slot: number; score: number }[],
  order: SlotOrder,
  reach: number,
  limit: number,
  live: Uint8Array,
  accept?: (slot: number) => boolean,
  blocks?: ScoredBlocks,
): WindowArm {
  const slotCount = live.length;
  const memo = borrowMemo(slotCount);
  const { stamp, lexical: lexicalScores, lexicalStamp, window: windowScores, windowStamp } = memo;
  const { previous, next } = order;
  const counting = order.dense === true && accept === undefined;
  let released = false;
  // While `dense` is valid its scores are read; after, a slot is scored alone.
  let read: (slot: number) => number =
    blocks === undefined
      ? (slot) => dense.scores[slot] ?? 0
      : (slot) => {
          blocks.ensure(slot);
          return dense.scores[slot] ?? 0;
        };
  const lexicalAt = (slot: number): number => {
    if (lexicalStamp[slot] === stamp) return lexicalScores[slot] as number;
    const value = accept !== undefined && !accept(slot) ? 0 : read(slot);
    lexicalScores[slot] = value;
    lexicalStamp[slot] = stamp;
    return value;
  };
  // The first and last places of a slot's window: `reach` places before and after it in the corpus's order.
  const windowStart = (slot: number): number => (counting ? Math.max(0, slot - reach) : followChain(previous, slot, reach));
  const windowEnd = (slot: number): number => (counting ? Math.min(slotCount - 1, slot + reach) : followChain(next, slot, reach));
  // A slot's window sum, its places added in slot order from zero (the exhaustive sums' order).
  const windowOf = (slot: number): number => {
    if (windowStamp[slot] === stamp) return windowScores[slot] as number;
    let sum = 0;
    const last = windowEnd(slot);
    for (let other = windowStart(slot); other >= 0; other = counting ? other + 1 : (next[other] ?? -1)) {
      sum += lexicalAt(other);
      if (other === last) break;
    }
    windowScores[slot] = sum;
    windowStamp[slot] = stamp;
    return sum;
  };
  const computed: number[] = [];
  // The windows around each of `slots` (ascending), each once.
  const around = (slots: ArrayLike<number>, count: number): void => {
    let checked = -1;
    for (let index = 0; index < count; index++) {
      const slot = slots[index] as number;
      const last = windowEnd(slot);
      for (let other = windowStart(slot); other >= 0; other = counting ? other + 1 : (next[other] ?? -1)) {
        if (other > checked) {
          checked = other;
          if (windowStamp[other] !== stamp && (accept === undefined || accept(other))) {
            windowOf(other);
            computed.push(other);
          }
        }
        if (other === last) break;
      }
    }
  };
  const headSlots = Int32Array.from(head, ({ slot }) => slot).sort();
  around(headSlots, headSlots.length);
  if (head.length >= limit && limit > 0) {
    const floor = new TopK(limit);
    for (const slot of computed) floor.push(slot, windowScores[slot] as number);
    if (blocks === undefined) {
      const least = floor.threshold * WINDOW_SAFETY;
      // Every window in the corpus's order, summed on the run (a place in, a place out; afresh every 1,024 places so
      // that the running sum cannot drift), refused places counted: at least each true window (up to the margin).
      // The windows that reach the `limit`-th best around the head are summed exactly.
      for (const center of windowsAtLeast(dense.scores, live, order, counting, reach, least)) {
        if (windowStamp[center] !== stamp && (accept === undefined || accept(center))) {
          windowOf(center);
          computed.push(center);
        }
      }
    } else {
      // Best first by the blocks' window bounds: each window summed exactly raises the floor, and the blocks whose
      // bound cannot reach it are not read.
      const found = new Int32Array(1 << blocks.shift);
      blocks.visitWindowBlocks(
        () => floor.threshold * WINDOW_SAFETY,
        (block) => {
          const count = windowMayReach(blocks, dense.scores, block, floor.threshold * WINDOW_SAFETY, reach, slotCount, found);
          for (let at = 0; at < count; at++) {
            const center = found[at] as number;
            if (windowStamp[center] !== stamp && (accept === undefined || accept(center))) {
              floor.push(center, windowOf(center));
              computed.push(center);
            }
          }
        },
      );
    }
  }
  const top = new TopK(limit);
  for (const slot of computed) top.push(slot, windowScores[slot] as number);
  const results = top.sorted();
  read = score;
  return {
    results,
    scoreOf(slot: number): number {
      if (released) throw new Error('WindowArm.scoreOf after release');
      if (accept !== undefined && !accept(slot)) return 0;
      return windowOf(slot);
    },
    release(): void {
      if (released) return;
      released = true;
      if (spareMemo === null || spareMemo.lexical.length < memo.lexical.length) spareMemo = memo;
    },
  };
}

/** The slot `reach` links from `slot` along one slot chain (`previous` or `next`), or the chain's last before it ends. */
function followChain(chain: Int32Array, slot: number, reach: number): number {
  let place = slot;
  for (let step = 0; step < reach; step++) {
    const linked = chain[place] ?? -1;
    if (linked < 0) break;
    place = linked;
  }
  return place;
}

/**
 * The slots whose window, summed on the run over `scores` in the corpus's order (a place in, a place out; afresh
 * every 1,024 places so that the sum cannot drift), is at least `least`: every slot whose true window is (refused
 * places count here, so the run's sums are no lower), and a few more.
 */
function windowsAtLeast(scores: Float64Array, live: Uint8Array, order: SlotOrder, counting: boolean, reach: number, least: number): number[] {
  const slotCount = live.length;
  if (counting) return countedWindowsAtLeast(scores, slotCount, reach, least);
  const next = order.next;
  const width = 2 * reach + 1;
  const ring = new Int32Array(width);
  const found: number[] = [];
  let slot = 0;
  while (slot < slotCount && live[slot] !== 1) slot++;
  if (slot >= slotCount) return found;
  let position = 0;
  let sum = 0;
  for (;;) {
    if (position >= width) sum -= scores[ring[position % width] as number] as number;
    ring[position % width] = slot;
    sum += scores[slot] as number;
    if (position >= reach) {
      // The window of the place `reach` back: places position - 2 x reach to position.
      if (position % 1024 === 0) {
        sum = 0;
        for (let at = Math.max(0, position - 2 * reach); at <= position; at++) sum += scores[ring[at % width] as number] as number;
      }
      if (sum >= least) found.push(ring[(position - reach) % width] as number);
    }
    position++;
    slot = counting ? slot + 1 : (next[slot] ?? -1);
    if (slot < 0 || slot >= slotCount) break;
  }
  // The last places' windows, cut at the end of the order.
  const total = position;
  for (let center = Math.max(0, total - reach); center < total; center++) {
    if (center - reach - 1 >= 0) sum -= scores[ring[(center - reach - 1) % width] as number] as number;
    if (sum >= least) found.push(ring[center % width] as number);
  }
  return found;
}

/** `windowsAtLeast` when the order is every slot in turn: a window is slots - reach to + reach. */
function countedWindowsAtLeast(scores: Float64Array, slotCount: number, reach: number, least: number): number[] {
  const found: number[] = [];
  let sum = 0;
  for (let at = 0; at < Math.min(reach, slotCount); at++) sum += scores[at] as number;
  for (let slot = 0; slot < slotCount; slot++) {
    if (slot + reach < slotCount) sum += scores[slot + reach] as number;
    if (slot - reach - 1 >= 0) sum -= scores[slot - reach - 1] as number;
    if ((slot & 1023) === 0) {
      sum = 0;
      for (let at = Math.max(0, slot - reach); at <= Math.min(slotCount - 1, slot + reach); at++) sum += scores[at] as number;
    }
    if (sum >= least) found.push(slot);
  }
  return found;
}

/**
 * The window arm from every accepted match (`windowSums` over them in slot order): the reference `prunedWindows`
 * gives exactly, and the arm when nothing can be pruned (an uncapped search).
 *
 * @example
 * ```ts
 * const arm = exhaustiveWindows(matches, index.order, 2, 100, index.bm25.slots);
 * ```
 */
export function exhaustiveWindows(
  matches: { slots: ArrayLike<number>; scores: ArrayLike<number>; count: number },
  order: SlotOrder,
  reach: number,
  limit: number,
  slotCount: number,
  accept?: (slot: number) => boolean,
): WindowArm {
  // In slot order, so that each window adds its places from the first to the last.
  const bySlot = new Float64Array(slotCount);
  for (let index = 0; index < matches.count; index++) bySlot[matches.slots[index] as number] = matches.scores[index] as number;
  const sortedSlots = new Int32Array(matches.count);
  const sortedScores = new Float64Array(matches.count);
  let count = 0;
  for (let slot = 0; slot < slotCount && count < matches.count; slot++) {
    const score = bySlot[slot] as number;
    if (score === 0) continue;
    sortedSlots[count] = slot;
    sortedScores[count++] = score;
  }
  const sums = windowSums({ slots: sortedSlots, scores: sortedScores, count }, order, reach, slotCount, accept);
  return { results: sums.top(limit), scoreOf: (slot) => sums.scoreOf(slot), release: () => sums.release() };
}
