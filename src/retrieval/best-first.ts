// Best-first visits of blocks by upper bound, until a rising floor is above every bound left.

/** Above 1: the bounds' margin for rounding (a block is skipped only when its bound is below the floor by more). */
export const BOUND_MARGIN = 1 + 1e-6;
/** The bounds are sorted into this many buckets of [0, ceiling]. */
const BUCKETS = 64;

/**
 * Visits blocks best first by an upper bound of what they hold, and stops once the floor the visits raise is above
 * every bound left: the blocks skipped are exactly those whose bound cannot reach the floor. One pass over the
 * bounds lists each block in one of 64 buckets (a 64th of the ceiling each), ascending; the buckets are then read
 * best first, each one's blocks in ascending order (neighbouring blocks read one after the other share their
 * postings' and norms' cache lines), a block skipped when the floor is already above its own bound. One instance
 * keeps its scratch array from one pass to the next.
 *
 * @example
 * ```ts
 * const best = new BestFirstBlocks();
 * const top = new TopK(10);
 * best.visit(bounds, blockCount, largestBound, () => top.threshold, (block) => scoreBlock(block, top));
 * ```
 */
export class BestFirstBlocks {
  /** Per block, the next block of its bucket (-1 at the end); per bucket, its first block. */
  private next = new Int32Array(64);
  private readonly heads = new Int32Array(BUCKETS);

  /**
   * Visits the blocks `0 .. count - 1` whose bound (`bounds[block]`, at most `ceiling`) is positive, best first (to
   * a bucket's width, ceiling / 64; within a bucket in ascending order), skipping every block whose bound times
   * `BOUND_MARGIN` is below `floor()` when it comes, and stopping when `floor()` is above every bound left times
   * `BOUND_MARGIN`; `visit` may raise the floor. Returns how many blocks were visited.
   */
  visit(bounds: Float64Array, count: number, ceiling: number, floor: () => number, visit: (block: number) => void): number {
    if (!(ceiling > 0)) return 0;
    const scale = BUCKETS / ceiling;
    if (this.next.length < count) this.next = new Int32Array(count);
    const next = this.next;
    const heads = this.heads;
    heads.fill(-1);
    // Listed from the last block down, so that each bucket's list runs ascending.
    for (let block = count - 1; block >= 0; block--) {
      const bound = bounds[block] as number;
      if (bound > 0) {
        const bucket = Math.min(BUCKETS - 1, Math.floor(bound * scale));
        next[block] = heads[bucket] as number;
        heads[bucket] = block;
      }
    }
    let visited = 0;
    for (let bucket = BUCKETS - 1; bucket >= 0; bucket--) {
      // Every block left is below this bucket's upper edge.
      if (floor() > ((bucket + 1) / scale) * BOUND_MARGIN) return visited;
      for (let block = heads[bucket] as number; block >= 0; block = next[block] as number) {
        if (floor() > (bounds[block] as number) * BOUND_MARGIN) continue;
        visit(block);
        visited++;
      }
    }
    return visited;
  }
}
