// termBlockBounds: its bounds hold every posting and window, and a common term's offsets find each block's postings.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../bench/synthetic-corpus.js';
import { BLOCK_SHIFT, STRETCH_SHIFT, termBlockBounds } from '../src/retrieval/block-bounds.js';

const K1 = 1.2;

/** A term's postings over `slots` slots, each slot in it with chance `share`, and the corpus's length norms. */
function randomTerm(seed: number, slots: number, share: number) {
  const random = seededRandom(seed);
  const norms = Float64Array.from({ length: slots }, () => K1 * (0.25 + 1.5 * random()));
  const posted: number[] = [];
  const frequencies: number[] = [];
  for (let slot = 0; slot < slots; slot++) {
    if (random() >= share) continue;
    posted.push(slot);
    frequencies.push(1 + Math.floor(random() * 4));
  }
  return { slots: Int32Array.from(posted), frequencies: Uint16Array.from(frequencies), norms };
}

/** A block's bound of a term: its value in the term's per-block array, or in its list of blocks (0 when absent). */
function boundOf(blocks: Int32Array | null, values: Uint8Array, block: number): number {
  if (blocks === null) return values[block] as number;
  const at = blocks.indexOf(block);
  return at < 0 ? 0 : (values[at] as number);
}

describe('termBlockBounds', () => {
  it('bounds every posting\'s saturation and every window\'s sum, per block, rare and common terms alike', () => {
    fc.assert(
      fc.property(fc.record({ seed: fc.nat(), slots: fc.integer({ min: 1, max: 3000 }), share: fc.constantFrom(0.01, 0.1, 0.6, 1), reach: fc.constantFrom(0, 1, 2, 3) }), ({ seed, slots, share, reach }) => {
        const term = randomTerm(seed, slots, share);
        const blockCount = (slots + (1 << BLOCK_SHIFT) - 1) >> BLOCK_SHIFT;
        const bounds = termBlockBounds(term.slots, term.frequencies, term.slots.length, term.norms, K1, reach, blockCount);
        const saturation = new Float64Array(slots);
        term.slots.forEach((slot, index) => {
          const frequency = term.frequencies[index] as number;
          saturation[slot] = (frequency * (K1 + 1)) / (frequency + (term.norms[slot] as number));
        });
        for (let slot = 0; slot < slots; slot++) {
          const block = slot >> BLOCK_SHIFT;
          let window = 0;
          for (let at = Math.max(0, slot - reach); at <= Math.min(slots - 1, slot + reach); at++) window += saturation[at] as number;
          expect(boundOf(bounds.peakBlocks, bounds.peaks, block) * bounds.peakStep * (1 + 1e-9)).toBeGreaterThanOrEqual(saturation[slot] as number);
          expect(boundOf(bounds.windowBlocks, bounds.windows, block) * bounds.windowStep * (1 + 1e-9)).toBeGreaterThanOrEqual(window);
        }
      }),
      { seed: 16, numRuns: 150, endOnFailure: true },
    );
  });
  it('gives a common term, per block, the offset of its first posting from its stretch\'s start (a rare term: none)', () => {
    fc.assert(
      fc.property(fc.record({ seed: fc.nat(), slots: fc.integer({ min: 1, max: 5000 }), share: fc.constantFrom(0.05, 0.3, 1) }), ({ seed, slots, share }) => {
        const term = randomTerm(seed, slots, share);
        const blockCount = (slots + (1 << BLOCK_SHIFT) - 1) >> BLOCK_SHIFT;
        const bounds = termBlockBounds(term.slots, term.frequencies, term.slots.length, term.norms, K1, 2, blockCount);
        if (term.slots.length * 4 < blockCount) {
          expect(bounds.offsets).toBeNull();
          return;
        }
        expect(bounds.offsets).not.toBeNull();
        for (let block = 0; block < blockCount; block++) {
          const first = term.slots.findIndex((slot) => slot >= block << BLOCK_SHIFT);
          const expected = first < 0 ? term.slots.length : first;
          expect((bounds.starts[block >> STRETCH_SHIFT] as number) + ((bounds.offsets as Uint16Array)[block] as number)).toBe(expected);
        }
      }),
      { seed: 17, numRuns: 60, endOnFailure: true },
    );
  });
});
