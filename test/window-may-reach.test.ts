// windowMayReach: every slot of a block whose true window reaches the floor is among those it names.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../bench/synthetic-corpus.js';
import type { ScoredBlocks } from '../src/retrieval/block-bounds.js';
import { windowMayReach } from '../src/retrieval/window-may-reach.js';

const SHIFT = 4;

/** A block's true window sum: its places from `reach` before to `reach` after, added in slot order. */
function trueWindow(scores: Float64Array, slot: number, reach: number): number {
  let sum = 0;
  for (let at = Math.max(0, slot - reach); at <= Math.min(scores.length - 1, slot + reach); at++) sum += scores[at] as number;
  return sum;
}

/** Blocks whose scores are only written when ensured (as a head search's skipped blocks are). */
function lazyBlocks(full: Float64Array) {
  const scores = new Float64Array(full.length);
  const ensured = new Set<number>();
  const blocks: ScoredBlocks = {
    shift: SHIFT,
    ensure(slot) {
      const block = slot >> SHIFT;
      if (ensured.has(block)) return;
      ensured.add(block);
      for (let at = block << SHIFT; at < Math.min(full.length, (block + 1) << SHIFT); at++) scores[at] = full[at] as number;
    },
    visitWindowBlocks: () => 0,
  };
  return { blocks, scores, ensured };
}

describe('windowMayReach', () => {
  it('names, ascending, a superset of the block\'s slots whose true window reaches a positive floor, and no slot outside the block', () => {
    fc.assert(
      fc.property(fc.record({ seed: fc.nat(), slots: fc.integer({ min: 1, max: 400 }), reach: fc.integer({ min: 0, max: 20 }), share: fc.constantFrom(0.1, 0.5, 1) }), ({ seed, slots, reach, share }) => {
        const random = seededRandom(seed);
        const full = Float64Array.from({ length: slots }, () => (random() < share ? Math.round(random() * 12) / 3 : 0));
        const { blocks, scores } = lazyBlocks(full);
        const found = new Int32Array(1 << SHIFT);
        for (let block = 0; block <= (slots - 1) >> SHIFT; block++) {
          const windows = Array.from({ length: 1 << SHIFT }, (_, at) => (block << SHIFT) + at).filter((slot) => slot < slots).map((slot) => trueWindow(full, slot, reach));
          // The floor is a window that holds a match (positive), as the window arm's floor is.
          const positive = windows.filter((window) => window > 0);
          if (positive.length === 0) continue;
          const least = positive[Math.floor(random() * positive.length)] as number;
          const count = windowMayReach(blocks, scores, block, least * (1 - 1e-9), reach, slots, found);
          const named = [...found.subarray(0, count)];
          expect(named).toEqual([...named].sort((a, b) => a - b));
          for (const slot of named) expect(slot >> SHIFT).toBe(block);
          windows.forEach((window, at) => {
            if (window >= least) expect(named).toContain((block << SHIFT) + at);
          });
        }
      }),
      { seed: 16, numRuns: 200, endOnFailure: true },
    );
  });
  it('scores the block and the blocks its windows reach before reading them', () => {
    const full = Float64Array.from({ length: 80 }, (_, slot) => (slot === 31 || slot === 32 ? 5 : 0));
    const { blocks, scores, ensured } = lazyBlocks(full);
    const found = new Int32Array(1 << SHIFT);
    // Block 2 (slots 32-47) with reach 3 reads slots 29-50: blocks 1, 2 and 3.
    const count = windowMayReach(blocks, scores, 2, 10, 3, 80, found);
    expect([...ensured].sort()).toEqual([1, 2, 3]);
    expect([...found.subarray(0, count)]).toEqual([32, 33, 34]);
  });
});
