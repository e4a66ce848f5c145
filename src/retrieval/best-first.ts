// Best-first visits of blocks by upper bound, until a rising floor is above every bound left.
import { grow } from './grow.js';

/** Above 1: the bounds' margin for rounding (a block is skipped only when its bound is below the floor by more). */
export const BOUND_MARGIN = 1 + 1e-6;
/** The bounds are sorted into this many bins of [0, ceiling]... */
const BINS = 1024;
/** ... grouped into buckets of 16 bins: a block is listed in its bucket once, and sorted into its bin only when its bucket is read. */
const BUCKET_SHIFT = 4;
const BUCKET_BINS = 1 << BUCKET_SHIFT;
const BUCKETS = BINS >> BUCKET_SHIFT;
/** The blocks are listed in four lanes (block mod 4), so that neighbouring blocks of one bucket do not wait on one another's list write. */
const LANES = 4;

/**
 * Visits blocks best first by an upper bound of what they hold, and stops once the floor the visits raise is above
 * every bound left: the blocks skipped are exactly those whose bound cannot reach the floor. One pass over the
 * bounds lists each block in one of 64 buckets (a 64th of the ceiling each); the buckets are then read best first,
 * each one's blocks sorted into its 16 bins (a 1,024th of the ceiling each) only when it is read, so that a pass
 * that stops early reads the bounds once and sorts only the blocks of its first buckets, not every block. One
 * instance keeps its scratch arrays from one pass to the next.
 *
 * @example
 * ```ts
 * const best = new BestFirstBlocks();
 * const top = new TopK(10);
 * best.visit(bounds, blockCount, largestBound, () => top.threshold, (block) => scoreBlock(block, top));
 * ```
 */
export class BestFirstBlocks {
  /** Per block, the next block of its lane and bucket (-1 at the end); per lane and bucket, its first block. */
  private next = new Int32Array(64);
  private readonly heads = new Int32Array(LANES * BUCKETS);
  /** One bucket's blocks, their bins (within the bucket), and the blocks by bin (`starts[bin]` where a bin's begin). */
  private listed = new Int32Array(64);
  private binOf = new Uint8Array(64);
  private order = new Int32Array(64);
  private readonly starts = new Int32Array(BUCKET_BINS + 1);

  /**
   * Visits the blocks `0 .. count - 1` whose bound (`bounds[block]`, at most `ceiling`) is positive, best first (to
   * a bin's width, ceiling / 1,024), until `floor()` is above every bound left times `BOUND_MARGIN`; `visit` may
   * raise the floor. Returns how many blocks were visited. Within a bin the blocks come in no set order.
   */
  visit(bounds: Float64Array, count: number, ceiling: number, floor: () => number, visit: (block: number) => void): number {
    if (!(ceiling > 0)) return 0;
    const scale = BINS / ceiling;
    if (this.next.length < count) this.next = new Int32Array(count);
    const next = this.next;
    const heads = this.heads;
    heads.fill(-1);
    for (let block = 0; block < count; block++) {
      const bound = bounds[block] as number;
      if (bound > 0) {
        const head = (block & (LANES - 1)) * BUCKETS + (Math.min(BINS - 1, Math.floor(bound * scale)) >> BUCKET_SHIFT);
        next[block] = heads[head] as number;
        heads[head] = block;
      }
    }
    let visited = 0;
    for (let bucket = BUCKETS - 1; bucket >= 0; bucket--) {
      // Every block left is below this bucket's upper edge.
      if (floor() > (((bucket + 1) << BUCKET_SHIFT) / scale) * BOUND_MARGIN) return visited;
      const listed = this.sortBucket(bounds, scale, bucket);
      if (listed === 0) continue;
      const { order, starts } = this;
      for (let bin = BUCKET_BINS - 1; bin >= 0; bin--) {
        const start = starts[bin] as number;
        const end = starts[bin + 1] as number;
        if (start === end) continue;
        if (floor() > (((bucket << BUCKET_SHIFT) + bin + 1) / scale) * BOUND_MARGIN) return visited;
        for (let at = start; at < end; at++) visit(order[at] as number);
        visited += end - start;
      }
    }
    return visited;
  }

  /** Sorts `bucket`'s blocks (every lane's) by bin into `order` (`starts[bin]` .. `starts[bin + 1]`); returns how many. */
  private sortBucket(bounds: Float64Array, scale: number, bucket: number): number {
    const { next, heads, starts } = this;
    starts.fill(0);
    let listed = 0;
    for (let lane = 0; lane < LANES; lane++) {
      for (let block = heads[lane * BUCKETS + bucket] as number; block >= 0; block = next[block] as number) {
        if (listed === this.listed.length) {
          this.listed = grow(this.listed, listed + 1);
          this.binOf = grow(this.binOf, listed + 1);
        }
        const bin = Math.min(BINS - 1, Math.floor((bounds[block] as number) * scale)) & (BUCKET_BINS - 1);
        this.listed[listed] = block;
        this.binOf[listed++] = bin;
        starts[bin + 1] = (starts[bin + 1] as number) + 1;
      }
    }
    if (listed === 0) return 0;
    for (let bin = 0; bin < BUCKET_BINS; bin++) starts[bin + 1] = (starts[bin + 1] as number) + (starts[bin] as number);
    if (this.order.length < listed) this.order = new Int32Array(this.listed.length);
    const { order, listed: blocks, binOf } = this;
    // Placed from each bin's start on, then the starts moved back.
    for (let at = 0; at < listed; at++) {
      const bin = binOf[at] as number;
      order[starts[bin] as number] = blocks[at] as number;
      starts[bin] = (starts[bin] as number) + 1;
    }
    for (let bin = BUCKET_BINS; bin > 0; bin--) starts[bin] = starts[bin - 1] as number;
    starts[0] = 0;
    return listed;
  }
}
