// BestFirstBlocks: the blocks it skips never change a best-k, it visits best first, each block once.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../bench/synthetic-corpus.js';
import { BestFirstBlocks } from '../src/retrieval/best-first.js';
import { TopK } from '../src/retrieval/top-k.js';

const SLOTS_PER_BLOCK = 4;

/** Random blocks of slot values, each block's bound its largest value times `slack` (at least 1: a true bound). */
function randomBlocks(seed: number, blockCount: number, zeroShare: number, slack: number) {
  const random = seededRandom(seed);
  const values = new Float64Array(blockCount * SLOTS_PER_BLOCK);
  const bounds = new Float64Array(blockCount);
  for (let block = 0; block < blockCount; block++) {
    if (random() < zeroShare) continue;
    let largest = 0;
    // Few distinct values, so that ties (broken by the lower slot) are met.
    for (let at = 0; at < SLOTS_PER_BLOCK; at++) {
      const value = random() < 0.3 ? 0 : Math.round(random() * 40) / 4 + (block % 7 === 0 ? 10 * random() : 0);
      values[block * SLOTS_PER_BLOCK + at] = value;
      if (value > largest) largest = value;
    }
    bounds[block] = largest * slack;
  }
  return { values, bounds };
}

/** The best `limit` (slot, value) pairs of the blocks visited best first, and the blocks visited in order. */
function bestFirst(best: BestFirstBlocks, values: Float64Array, bounds: Float64Array, limit: number) {
  const top = new TopK(limit);
  const visited: number[] = [];
  let ceiling = 0;
  for (const bound of bounds) ceiling = Math.max(ceiling, bound);
  const count = best.visit(bounds, bounds.length, ceiling, () => top.threshold, (block) => {
    visited.push(block);
    for (let slot = block * SLOTS_PER_BLOCK; slot < (block + 1) * SLOTS_PER_BLOCK; slot++) if ((values[slot] as number) > 0) top.push(slot, values[slot] as number);
  });
  return { results: top.sorted(), visited, count };
}

function exhaustive(values: Float64Array, limit: number) {
  const top = new TopK(limit);
  for (let slot = 0; slot < values.length; slot++) if ((values[slot] as number) > 0) top.push(slot, values[slot] as number);
  return top.sorted();
}

describe('BestFirstBlocks', () => {
  it('gives the best k of every block while skipping blocks (seeded random blocks, ties, empty blocks, loose bounds)', () => {
    const best = new BestFirstBlocks();
    let skipped = 0;
    fc.assert(
      fc.property(
        fc.record({ seed: fc.nat(), blocks: fc.integer({ min: 0, max: 3000 }), zeroShare: fc.constantFrom(0, 0.5, 0.95), slack: fc.constantFrom(1, 1.5, 4), limit: fc.constantFrom(1, 3, 10, 100, 5000) }),
        ({ seed, blocks, zeroShare, slack, limit }) => {
          const { values, bounds } = randomBlocks(seed, blocks, zeroShare, slack);
          const found = bestFirst(best, values, bounds, limit);
          expect(found.results).toEqual(exhaustive(values, limit));
          expect(found.count).toBe(found.visited.length);
          expect(new Set(found.visited).size).toBe(found.visited.length);
          for (const block of found.visited) expect(bounds[block]).toBeGreaterThan(0);
          skipped += bounds.filter((bound) => bound > 0).length - found.count;
        },
      ),
      { seed: 16, numRuns: 200, endOnFailure: true },
    );
    // The comparison is not empty: blocks were skipped.
    expect(skipped).toBeGreaterThan(0);
  });
  it('visits best first, to a bucket\'s width (a 64th of the ceiling), ascending within a bucket, and every positive block when the floor never rises', () => {
    const { values, bounds } = randomBlocks(3, 5000, 0.2, 1);
    const best = new BestFirstBlocks();
    const visited: number[] = [];
    const ceiling = Math.max(...bounds);
    best.visit(bounds, bounds.length, ceiling, () => -Infinity, (block) => visited.push(block));
    expect(visited.length).toBe(bounds.filter((bound) => bound > 0).length);
    const bucketOf = (block: number) => Math.min(63, Math.floor(((bounds[block] as number) * 64) / ceiling));
    let ascending = 0;
    for (let at = 1; at < visited.length; at++) {
      const [before, block] = [visited[at - 1] as number, visited[at] as number];
      expect(bounds[block]).toBeLessThan((bounds[before] as number) + ceiling / 64);
      expect(bucketOf(block)).toBeLessThanOrEqual(bucketOf(before));
      if (bucketOf(block) === bucketOf(before)) {
        expect(block).toBeGreaterThan(before);
        ascending++;
      }
    }
    expect(ascending).toBeGreaterThan(visited.length / 2);
    expect(values.length).toBe(5000 * SLOTS_PER_BLOCK);
  });
  it('skips a block whose bound is below the floor when it comes, within a bucket', () => {
    // Blocks 0..3 in one bucket: the floor rises to 0.5 after block 0, so block 1 (0.45) and block 3 (0.3) are skipped.
    const bounds = Float64Array.of(0.5, 0.45, 0.52, 0.3);
    const best = new BestFirstBlocks();
    let floor = -Infinity;
    const visited: number[] = [];
    const count = best.visit(bounds, bounds.length, 64, () => floor, (block) => {
      visited.push(block);
      floor = 0.5;
    });
    expect(visited).toEqual([0, 2]);
    expect(count).toBe(2);
  });
  it('stops at once when the floor is above every bound, and visits nothing without a positive bound', () => {
    const best = new BestFirstBlocks();
    const bounds = Float64Array.of(0, 2, 1, 3);
    expect(best.visit(bounds, 4, 3, () => 3.01, () => {})).toBe(0);
    expect(best.visit(new Float64Array(8), 8, 0, () => -Infinity, () => {})).toBe(0);
    // Only the first `count` blocks are read.
    const seen: number[] = [];
    best.visit(bounds, 2, 3, () => -Infinity, (block) => seen.push(block));
    expect(seen).toEqual([1]);
  });
  it('is checked: with the bounds halved (no longer bounds), the same comparison fails', () => {
    const best = new BestFirstBlocks();
    let failed = 0;
    for (let seed = 0; seed < 40; seed++) {
      const { values, bounds } = randomBlocks(seed, 500, 0.3, 0.5);
      if (JSON.stringify(bestFirst(best, values, bounds, 10).results) !== JSON.stringify(exhaustive(values, 10))) failed++;
    }
    expect(failed).toBeGreaterThan(0);
  });
});
