// Best-first visits of blocks by upper bound, in rounds, until a rising floor is above every bound left.
import { grow } from './grow.js';

/** Above 1: the bounds' margin for rounding (a block is skipped only when its bound is below the floor by more). */
export const BOUND_MARGIN = 1 + 1e-6;
/** The bounds are counted into this many bins of [0, ceiling]. */
const BINS = 1024;
/** The first round takes the best bins holding at least this many blocks; each next round four times as many. */
const FIRST_ROUND_BLOCKS = 256;
const ROUND_GROWTH = 4;

/**
 * Visits blocks best first by an upper bound of what they hold, and stops once the floor the visits raise is above
 * every bound left: the blocks skipped are exactly those whose bound cannot reach the floor. The bounds are counted
 * into 1,024 bins; the blocks are then taken in rounds, first those of the best bins holding at least 256 blocks,
 * then the next bins holding four times as many, and so on, each round's blocks listed by bin (best bin first): a
 * pass that stops early lists only the blocks of its first rounds, not every block. One instance keeps its
 * scratch arrays from one pass to the next.
 *
 * @example
 * ```ts
 * const best = new BestFirstBlocks();
 * const top = new TopK(10);
 * best.visit(bounds, blockCount, largestBound, () => top.threshold, (block) => scoreBlock(block, top));
 * ```
 */
export class BestFirstBlocks {
  private order = new Int32Array(64);
  private readonly counts = new Int32Array(BINS + 1);
  private readonly starts = new Int32Array(BINS + 1);

  /**
   * Visits the blocks `0 .. count - 1` whose bound (`bounds[block]`, at most `ceiling`) is positive, best first (to
   * a bin's width, ceiling / 1,024), until `floor()` is above every bound left times `BOUND_MARGIN`; `visit` may
   * raise the floor. Returns how many blocks were visited. Within a bin the blocks are visited in block order.
   */
  visit(bounds: Float64Array, count: number, ceiling: number, floor: () => number, visit: (block: number) => void): number {
    if (!(ceiling > 0)) return 0;
    const scale = BINS / ceiling;
    const counts = this.counts;
    counts.fill(0);
    for (let block = 0; block < count; block++) {
      const bound = bounds[block] as number;
      if (bound > 0) {
        const bin = Math.min(BINS - 1, Math.floor(bound * scale));
        counts[bin] = (counts[bin] as number) + 1;
      }
    }
    let visited = 0;
    let want = FIRST_ROUND_BLOCKS;
    // A round takes the bins [low, high).
    let high = BINS;
    while (high > 0) {
      // Every block left is below bin `high`'s lower edge.
      if (floor() > (high / scale) * BOUND_MARGIN) return visited;
      let low = high;
      let taken = 0;
      while (low > 0 && taken < want) taken += counts[--low] as number;
      if (taken > 0) {
        this.gather(bounds, count, scale, low, high, taken);
        const order = this.order;
        const starts = this.starts;
        for (let bin = high - 1; bin >= low; bin--) {
          const start = starts[bin - low] as number;
          const end = start + (counts[bin] as number);
          if (start === end) continue;
          if (floor() > ((bin + 1) / scale) * BOUND_MARGIN) return visited;
          for (let at = start; at < end; at++) visit(order[at] as number);
          visited += end - start;
        }
      }
      high = low;
      want *= ROUND_GROWTH;
    }
    return visited;
  }

  /** Lists in `order` the blocks of bins [low, high) (`taken` of them), by bin, best bin first; `starts[bin - low]` is where a bin's begin. */
  private gather(bounds: Float64Array, count: number, scale: number, low: number, high: number, taken: number): void {
    const counts = this.counts;
    const starts = this.starts;
    let at = 0;
    for (let bin = high - 1; bin >= low; bin--) {
      starts[bin - low] = at;
      at += counts[bin] as number;
    }
    this.order = grow(this.order, taken);
    const order = this.order;
    for (let block = 0; block < count; block++) {
      const bound = bounds[block] as number;
      if (!(bound > 0)) continue;
      const bin = Math.min(BINS - 1, Math.floor(bound * scale));
      if (bin < low || bin >= high) continue;
      const place = starts[bin - low] as number;
      order[place] = block;
      starts[bin - low] = place + 1;
    }
    // Back to each bin's start.
    for (let bin = low; bin < high; bin++) starts[bin - low] = (starts[bin - low] as number) - (counts[bin] as number);
  }
}
