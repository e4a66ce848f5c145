// The slots of one block whose window sum may reach a floor: the pruned window arm's test before it sums a window exactly.
import type { ScoredBlocks } from './block-bounds.js';

/**
 * Writes to `found` the slots of `block` (a head search's block, `ScoredBlocks`; a counting order, no filter) whose
 * window, summed on the run over the search's `scores` (the block and the blocks its windows reach scored first),
 * is at least `least`, ascending, and returns how many. Every slot whose true window (its places from `reach`
 * before to `reach` after, summed in slot order) is at least `least` is among them, up to rounding: the run's sum
 * is made afresh at the block's first slot, then a place in and a place out for each of its at most 1 << shift
 * slots, so it differs from a true window by a few ulps (the caller's floor has the margin). `found` holds at
 * least `1 << blocks.shift` slots.
 *
 * @example
 * ```ts
 * const found = new Int32Array(1 << blocks.shift);
 * const count = windowMayReach(blocks, dense.scores, block, floor * (1 - 1e-9), 2, slotCount, found);
 * for (let at = 0; at < count; at++) windowOf(found[at]);
 * ```
 */
export function windowMayReach(blocks: ScoredBlocks, scores: Float64Array, block: number, least: number, reach: number, slotCount: number, found: Int32Array): number {
  const shift = blocks.shift;
  const first = block << shift;
  const end = Math.min(slotCount, (block + 1) << shift);
  const low = Math.max(0, first - reach);
  const high = Math.min(slotCount - 1, end - 1 + reach);
  for (let other = low >> shift; other <= high >> shift; other++) blocks.ensure(other << shift);
  let sum = 0;
  for (let at = low; at <= Math.min(slotCount - 1, first + reach); at++) sum += scores[at] as number;
  let count = 0;
  for (let slot = first; slot < end; slot++) {
    if (slot > first) {
      if (slot + reach < slotCount) sum += scores[slot + reach] as number;
      if (slot - reach - 1 >= 0) sum -= scores[slot - reach - 1] as number;
    }
    if (sum >= least) found[count++] = slot;
  }
  return count;
}
