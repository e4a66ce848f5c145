// Block-max bounds of one term's postings: per block of slots, its largest BM25 saturation and largest window sum, so a query skips the blocks its head cannot reach.
import { runSteps } from '../core/time-slice.js';
import type { Steps } from '../core/time-slice.js';

/** log2 of the slots per block: blocks of 16 slots (measured at 100k: tighter blocks prune more, cost more bounds). */
export const BLOCK_SHIFT = 4;
/**
 * From this many slots on (65,536), an unfiltered search over a dense order scores only the BM25 blocks that can
 * reach the heads (`Bm25Index.searchHead`). Since the best-first passes (`BestFirstBlocks`) they save more than they
 * cost at 100k chunks too (1.58-1.61 against 1.81-2.04 ms of CPU a lexical query, docs/benchmarks.md); below, the
 * smaller saves (LoCoMo's) score every match as before. Was 2^18 (at 100k then: 1.41-1.52 against 1.25-1.32 ms).
 */
export const HEAD_SEARCH_SLOTS = 1 << 16;

/** log2 of the blocks per stretch whose first posting `TermBlockBounds.starts` keeps (64 blocks: 1,024 slots). */
export const STRETCH_SHIFT = 6;

/**
 * One term's bounds over blocks of `1 << BLOCK_SHIFT` slots, under one length normalisation: `peaks[block] *
 * peakStep` is at least the saturation `f (k1 + 1) / (f + norm)` of every posting in the block; `windows[block] *
 * windowStep` at least the sum of the saturations within `reach` places of any slot of the block (slots counted in
 * order: a dense corpus order). A query term's contribution is its multiplier (idf x weight) times a saturation.
 * A rare term (postings fewer than a quarter of the blocks) lists the blocks it touches instead (`peakBlocks`,
 * `windowBlocks`): its bounds cost its postings, not the corpus.
 */
export interface TermBlockBounds {
  /** Per stretch of `1 << STRETCH_SHIFT` blocks, the index of its first posting (then the postings' count). */
  readonly starts: Int32Array;
  /**
   * A common term's: per block, the index of its first posting (at or after its first slot) minus its stretch's
   * start (at most 63 blocks of 16 postings), so that a block's postings are found without a search; null for a
   * rare term (searched in its stretch).
   */
  readonly offsets: Uint16Array | null;
  /** The blocks `peaks` holds the bounds of, ascending (the others: 0); null when `peaks` holds every block's. */
  readonly peakBlocks: Int32Array | null;
  readonly peaks: Uint8Array;
  readonly peakStep: number;
  /** The blocks `windows` holds the bounds of, as `peakBlocks`. */
  readonly windowBlocks: Int32Array | null;
  readonly windows: Uint8Array;
  readonly windowStep: number;
}

/**
 * The saturations and window sums of the last term's bounds, and a rare term's blocks and bounds before they are
 * copied out at their length, kept for the next (the bounds are made one at a time): a rare term's bounds then
 * allocate their own length alone, not zeroed arrays of several times it.
 */
let spare = { saturations: new Float64Array(0), forward: new Float64Array(0) };
let rareSpare = { peakBlocks: new Int32Array(0), peaks: new Uint8Array(0), windowBlocks: new Int32Array(0), windows: new Uint8Array(0) };

/**
 * The bounds of one term's postings (`slots` ascending, the first `length`), with `norms[slot]` the length
 * normalisation k1 (1 - b + b length / average). One pass over the postings to find the saturations and their
 * window sums, one to quantise them (255 steps of the term's largest); O(postings + blocks).
 *
 * @example
 * ```ts
 * const bounds = termBlockBounds(Int32Array.of(3, 40), Uint16Array.of(1, 2), 2, norms, 1.2, 2, 3);
 * bounds.peaks[0] * bounds.peakStep; // at least slot 3's saturation
 * ```
 */
export function termBlockBounds(slots: Int32Array, frequencies: Uint16Array | Uint8Array, length: number, norms: Float64Array, k1: number, reach: number, blockCount: number): TermBlockBounds {
  if (length * 4 >= blockCount) return commonTermBounds(slots, frequencies, length, norms, k1, reach, blockCount);
  if (spare.saturations.length < length) spare = { saturations: new Float64Array(length), forward: new Float64Array(length) };
  const { saturations, forward } = spare;
  let peak = 0;
  for (let index = 0; index < length; index++) {
    const frequency = frequencies[index] as number;
    const saturation = (frequency * (k1 + 1)) / (frequency + (norms[slots[index] as number] as number));
    saturations[index] = saturation;
    if (saturation > peak) peak = saturation;
  }
  // forward[i]: the saturations of postings i.. within 2 x reach slots after posting i. A window's postings start at
  // some posting i within `reach` of its centre and end within 2 x reach of it, so forward[i] bounds the window.
  let windowPeak = 0;
  let end = 0;
  for (let index = 0; index < length; index++) {
    const limit = (slots[index] as number) + 2 * reach;
    while (end < length && (slots[end] as number) <= limit) end++;
    // Summed afresh (at most 2 x reach + 1 postings) rather than by a running sum, which rounding could leave low.
    let sum = 0;
    for (let at = index; at < end; at++) sum += saturations[at] as number;
    forward[index] = sum;
    if (sum > windowPeak) windowPeak = sum;
  }
  const peakStep = peak / 255;
  const windowStep = windowPeak / 255;
  // A quantised bound: the least step count whose value is at least the value (up to rounding: the callers' margin).
  const perPeakStep = peak > 0 ? 255 / peak : 0;
  const perWindowStep = windowPeak > 0 ? 255 / windowPeak : 0;
  // A term in fewer postings than a quarter of the blocks (every term here) keeps the blocks it touches alone (see
  // `TermBlockBounds`), listed in the spare arrays, then copied out at their length.
  const span = (2 * reach) >> BLOCK_SHIFT;
  if (rareSpare.peakBlocks.length < length || rareSpare.windowBlocks.length < length * (span + 2)) {
    const room = Math.max(length, 2 * rareSpare.peakBlocks.length);
    rareSpare = { peakBlocks: new Int32Array(room), peaks: new Uint8Array(room), windowBlocks: new Int32Array(room * (span + 2)), windows: new Uint8Array(room * (span + 2)) };
  }
  const { peakBlocks, peaks, windowBlocks, windows } = rareSpare;
  let peakCount = 0;
  let windowCount = 0;
  const stretches = (blockCount >> STRETCH_SHIFT) + 1;
  const starts = new Int32Array(stretches + 1);
  const last = blockCount - 1;
  let stretch = 0;
  for (let index = 0; index < length; index++) {
    const slot = slots[index] as number;
    const block = slot >> BLOCK_SHIFT;
    while (stretch <= block >> STRETCH_SHIFT) starts[stretch++] = index;
    const quantised = Math.min(255, Math.ceil((saturations[index] as number) * perPeakStep));
    // The windows whose postings start here: those centred within `reach` of this slot.
    const windowSteps = Math.min(255, Math.ceil((forward[index] as number) * perWindowStep));
    const to = Math.min(last, (slot + reach) >> BLOCK_SHIFT);
    const from = Math.max(0, slot - reach) >> BLOCK_SHIFT;
    // Blocks ascending: a posting's block is the last one listed or a new one; so is each block of its windows
    // (an earlier posting whose windows reached past `other` reached `other` too).
    if (peakCount > 0 && peakBlocks[peakCount - 1] === block) {
      if (quantised > (peaks[peakCount - 1] as number)) peaks[peakCount - 1] = quantised;
    } else {
      peakBlocks[peakCount] = block;
      peaks[peakCount++] = quantised;
    }
    for (let other = from; other <= to; other++) {
      let at = windowCount - 1;
      while (at >= 0 && (windowBlocks[at] as number) > other) at--;
      if (at >= 0 && windowBlocks[at] === other) {
        if (windowSteps > (windows[at] as number)) windows[at] = windowSteps;
      } else {
        windowBlocks[windowCount] = other;
        windows[windowCount++] = windowSteps;
      }
    }
  }
  while (stretch <= stretches) starts[stretch++] = length;
  return {
    starts,
    offsets: null,
    peakBlocks: peakBlocks.slice(0, peakCount),
    peaks: peaks.slice(0, peakCount),
    peakStep,
    windowBlocks: windowBlocks.slice(0, windowCount),
    windows: windows.slice(0, windowCount),
    windowStep,
  };
}

/**
 * The fixed steps a common term's bounds are quantised to (`termBlockBounds` of a term in a quarter of the blocks or
 * more): a saturation is below k1 + 1, a window sum below 2 x reach + 1 times that; 255 steps each.
 *
 * @example
 * ```ts
 * const { peakStep } = commonBoundSteps(1.2, 2); // 2.2 / 255
 * ```
 */
export function commonBoundSteps(k1: number, reach: number): { peakStep: number; windowStep: number } {
  return { peakStep: (k1 + 1) / 255, windowStep: ((2 * reach + 1) * (k1 + 1)) / 255 };
}

/** `commonTermBoundsSteps` pauses every 65,536 postings. */
const STEP_POSTINGS = 65_535;

/** `termBlockBounds` of a common term, at once, in the shared scratch. */
function commonTermBounds(slots: Int32Array, frequencies: Uint16Array | Uint8Array, length: number, norms: Float64Array, k1: number, reach: number, blockCount: number): TermBlockBounds {
  if (spare.saturations.length < length) spare = { saturations: new Float64Array(length), forward: new Float64Array(length) };
  return runSteps(commonTermBoundsSteps(slots, frequencies, length, norms, k1, reach, blockCount, spare.saturations));
}

/**
 * `termBlockBounds` of a common term (postings at least a quarter of the blocks), in one pass over its postings and
 * quantised on the run, to fixed steps (`commonBoundSteps`): each block's largest value is quantised once, as the
 * postings leave the block. A pause every 65,536 postings, for a persist that runs in slices between queries:
 * `saturations` (at least `length` long) is its scratch, not the queries' shared one.
 *
 * @example
 * ```ts
 * const bounds = yield* commonTermBoundsSteps(slots, frequencies, slots.length, norms, 1.2, 2, blocks, new Float64Array(slots.length));
 * ```
 */
export function* commonTermBoundsSteps(slots: Int32Array, frequencies: Uint16Array | Uint8Array, length: number, norms: Float64Array, k1: number, reach: number, blockCount: number, saturations: Float64Array): Steps<TermBlockBounds> {
  const { peakStep, windowStep } = commonBoundSteps(k1, reach);
  const perPeakStep = 1 / peakStep;
  const perWindowStep = 1 / windowStep;
  const peaks = new Uint8Array(blockCount);
  const windows = new Uint8Array(blockCount);
  const offsets = new Uint16Array(blockCount);
  const stretches = (blockCount >> STRETCH_SHIFT) + 1;
  const starts = new Int32Array(stretches + 1);
  const last = blockCount - 1;
  let stretch = 0;
  // The next block whose first posting is not noted yet.
  let offsetBlock = 0;
  let end = 0;
  // The block being read and its largest saturation; the first block a window sum reaches and its largest, and the next one's.
  let peakBlock = -1;
  let peak = 0;
  let windowBlock = 0;
  let window = 0;
  let nextWindow = 0;
  for (let index = 0; index < length; index++) {
    if ((index & STEP_POSTINGS) === STEP_POSTINGS) yield;
    const slot = slots[index] as number;
    // The saturations of the postings up to 2 x reach slots on, each made once as the window reaches it.
    const limit = slot + 2 * reach;
    while (end < length && (slots[end] as number) <= limit) {
      const frequency = frequencies[end] as number;
      saturations[end] = (frequency * (k1 + 1)) / (frequency + (norms[slots[end] as number] as number));
      end++;
    }
    // The window sum starting here, summed afresh (as `termBlockBounds`).
    let sum = 0;
    for (let at = index; at < end; at++) sum += saturations[at] as number;
    const block = slot >> BLOCK_SHIFT;
    while (stretch <= block >> STRETCH_SHIFT) starts[stretch++] = index;
    // This posting is the first at or after the first slot of every block up to its own.
    while (offsetBlock <= block) {
      offsets[offsetBlock] = index - (starts[offsetBlock >> STRETCH_SHIFT] as number);
      offsetBlock++;
    }
    if (block !== peakBlock) {
      if (peakBlock >= 0) peaks[peakBlock] = Math.min(255, Math.ceil(peak * perPeakStep));
      peakBlock = block;
      peak = 0;
    }
    if ((saturations[index] as number) > peak) peak = saturations[index] as number;
    const from = Math.max(0, slot - reach) >> BLOCK_SHIFT;
    const to = Math.min(last, (slot + reach) >> BLOCK_SHIFT);
    while (windowBlock < from) {
      if (window > 0) windows[windowBlock] = Math.min(255, Math.ceil(window * perWindowStep));
      window = nextWindow;
      nextWindow = 0;
      windowBlock++;
      if (window === 0 && windowBlock < from) windowBlock = from;
    }
    if (sum > window) window = sum;
    // A window reaches at most one block further (reach below a block; beyond, every block it reaches).
    for (let other = from + 1; other <= to; other++) {
      if (other === from + 1) {
        if (sum > nextWindow) nextWindow = sum;
      } else if (Math.min(255, Math.ceil(sum * perWindowStep)) > (windows[other] as number)) {
        windows[other] = Math.min(255, Math.ceil(sum * perWindowStep));
      }
    }
  }
  while (stretch <= stretches) starts[stretch++] = length;
  for (; offsetBlock < blockCount; offsetBlock++) offsets[offsetBlock] = length - (starts[offsetBlock >> STRETCH_SHIFT] as number);
  if (peakBlock >= 0) peaks[peakBlock] = Math.min(255, Math.ceil(peak * perPeakStep));
  if (window > 0) windows[windowBlock] = Math.max(windows[windowBlock] as number, Math.min(255, Math.ceil(window * perWindowStep)));
  if (nextWindow > 0 && windowBlock + 1 <= last) windows[windowBlock + 1] = Math.max(windows[windowBlock + 1] as number, Math.min(255, Math.ceil(nextWindow * perWindowStep)));
  return { starts, offsets, peakBlocks: null, peaks, peakStep, windowBlocks: null, windows, windowStep };
}

/**
 * Adds `step` times each of a term's block bounds (`peaks` or `windows`, with their blocks, null for every block)
 * to `bounds`, per block.
 *
 * @example
 * ```ts
 * addBlockBounds(bounds, term.peakBlocks, term.peaks, multiplier * term.peakStep);
 * ```
 */
export function addBlockBounds(bounds: Float64Array, blocks: Int32Array | null, values: Uint8Array, step: number): void {
  if (blocks === null) {
    for (let block = 0; block < values.length; block++) bounds[block] = (bounds[block] as number) + step * (values[block] as number);
    return;
  }
  for (let at = 0; at < blocks.length; at++) {
    const block = blocks[at] as number;
    bounds[block] = (bounds[block] as number) + step * (values[at] as number);
  }
}

/**
 * Adds to `bounds`, per block (the first `count`), every common term's `steps[term]` times its bound
 * (`values[term][block]`, a per-block array): four terms a pass over the blocks, so that the bounds array is read
 * and written once per four terms instead of once per term.
 *
 * @example
 * ```ts
 * addEveryBlockBounds(bounds, blockCount, [first.peaks, second.peaks], [firstStep, secondStep]);
 * ```
 */
export function addEveryBlockBounds(bounds: Float64Array, count: number, values: readonly Uint8Array[], steps: readonly number[]): void {
  let term = 0;
  for (; term + 4 <= values.length; term += 4) {
    const [first, second, third, fourth] = values.slice(term, term + 4) as [Uint8Array, Uint8Array, Uint8Array, Uint8Array];
    const [a, b, c, d] = steps.slice(term, term + 4) as [number, number, number, number];
    for (let block = 0; block < count; block++) {
      bounds[block] = (bounds[block] as number) + (a * (first[block] as number) + b * (second[block] as number) + c * (third[block] as number) + d * (fourth[block] as number));
    }
  }
  if (values.length - term === 3) {
    const [first, second, third] = values.slice(term) as [Uint8Array, Uint8Array, Uint8Array];
    const [a, b, c] = steps.slice(term) as [number, number, number];
    for (let block = 0; block < count; block++) bounds[block] = (bounds[block] as number) + (a * (first[block] as number) + b * (second[block] as number) + c * (third[block] as number));
  } else if (values.length - term === 2) {
    const [first, second] = values.slice(term) as [Uint8Array, Uint8Array];
    const [a, b] = steps.slice(term) as [number, number];
    for (let block = 0; block < count; block++) bounds[block] = (bounds[block] as number) + (a * (first[block] as number) + b * (second[block] as number));
  } else if (values.length - term === 1) {
    const only = values[term] as Uint8Array;
    const a = steps[term] as number;
    for (let block = 0; block < count; block++) bounds[block] = (bounds[block] as number) + a * (only[block] as number);
  }
}

/**
 * The blocks a head search scored, for the window arm that reads its scores: `ensure(slot)` scores the block of
 * `slot` when the search skipped it (its score is then in the search's score array); `visitWindowBlocks(floor,
 * visit)` visits, best first by the bound of their window sums (`BestFirstBlocks`), the blocks whose windows can
 * reach `floor()` (which `visit` may raise), and returns how many it visited.
 */
export interface ScoredBlocks {
  readonly shift: number;
  ensure(slot: number): void;
  visitWindowBlocks(floor: () => number, visit: (block: number) => void): number;
}
