// The median normaliser of the semantic arm: the statistics, its option, and the arm standardised by it in a save.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { openMemory } from '../src/open-memory.js';
import { MAD_SCALE, MedianStatistics, middle, optionalSemanticNormaliser } from '../src/retrieval/median-statistics.js';
import { ScoreStatistics } from '../src/retrieval/score-statistics.js';

/** The median by sorting (the reference). */
function sortedMedian(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const half = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[half] as number) : ((sorted[half - 1] as number) + (sorted[half] as number)) / 2;
}

describe('middle', () => {
  it('is the median of odd and even counts, with repeats, whatever the order (seeded)', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 200; round++) {
      const count = 1 + (round % 37);
      const values = Array.from({ length: count }, () => (round % 3 === 0 ? Math.floor(random() * 4) : random() * 2 - 1));
      expect(middle(Float64Array.from(values))).toBe(sortedMedian(values));
    }
    expect(middle(new Float64Array([5, 1, 4, 2]))).toBe(3);
    expect(middle(new Float64Array(0))).toBe(0);
  });
});

describe('MedianStatistics', () => {
  it('gives the median and the scaled median absolute deviation, added one by one or at once', () => {
    const one = new MedianStatistics();
    for (const score of [1, 2, 3, 100]) one.add(score);
    expect(one.mean).toBe(2.5);
    expect(one.deviation).toBeCloseTo(MAD_SCALE * 1, 12);
    const many = new MedianStatistics();
    many.addMany(new Float64Array([3, 100, 0, 0]), null, 2);
    many.addMany(new Float64Array([2, 1]), null, 2);
    expect([many.count, many.mean, many.deviation]).toEqual([one.count, one.mean, one.deviation]);
    // The moments are the plain statistics' (the sums are kept too).
    expect(many.sum).toBe(106);
  });
  it('grows past its first buffer, and a tail does not move it as it moves the mean', () => {
    const statistics = new MedianStatistics();
    const plain = new ScoreStatistics();
    const values = Array.from({ length: 1000 }, (_, index) => (index < 990 ? (index % 10) / 10 : 50));
    for (const value of values) {
      statistics.add(value);
      plain.add(value);
    }
    expect(statistics.mean).toBe(sortedMedian(values));
    expect(plain.mean).toBeGreaterThan(statistics.mean + 0.4);
    expect(statistics.deviation).toBeLessThan(plain.deviation);
  });
  it('falls back to the standard deviation when most scores are equal, and to the moments for totals a store adds', () => {
    const flat = new MedianStatistics();
    for (const value of [1, 1, 1, 1, 5]) flat.add(value);
    expect(flat.mean).toBe(1);
    expect(flat.deviation).toBeCloseTo(1.6, 12);
    const empty = new MedianStatistics();
    expect([empty.mean, empty.deviation]).toEqual([0, 0]);
    const totals = new MedianStatistics();
    totals.count += 2;
    totals.sum += 4;
    totals.sumOfSquares += 10;
    expect([totals.mean, totals.deviation]).toEqual([2, 1]);
  });
  it('checks its option', () => {
    expect(optionalSemanticNormaliser('median', 'mean')).toBe('median');
    expect(optionalSemanticNormaliser(undefined, 'mean')).toBe('mean');
    expect(optionalSemanticNormaliser(null, 'median')).toBe('mean');
    expect(() => optionalSemanticNormaliser('mad', 'mean')).toThrow(/semanticNormaliser: expected "mean" or "median"/);
  });
});

describe('the median normaliser in a save', () => {
  const TURNS = ['The lantern hung by the door.', 'Its glass was cracked.', 'She said it needs oil.', 'The lantern went out at sea.', 'The sailor sang all night.', 'Nobody slept on the boat.', 'A storm came at dawn.'];
  it('standardises the semantic arm by the median and its deviation, and changes nothing else', async () => {
    const memory = await openMemory({ path: ':memory:', logger: silentLogger, embedder: 'hashing' });
    await memory.addMany(TURNS.map((text, turn) => ({ saveId: 's', turnId: turn, text })));
    const options = { k: 7, windowSum: null, feedback: null, adaptiveWeights: 0 } as const;
    const mean = await memory.query('s', 'lantern storm', options);
    const median = await memory.query('s', 'lantern storm', { ...options, semanticNormaliser: 'median' });
    expect(await memory.query('s', 'lantern storm', { ...options, semanticNormaliser: 'mean' })).toEqual(mean);
    expect(median.length).toBe(mean.length);
    const part = (hits: typeof mean, turn: number, kind: 'semantic' | 'lexical') => hits.find((hit) => hit.turnId === turn)?.explanation.contributions?.[kind] as number;
    // Same cosines, another centre and scale: the semantic parts are one affine map of the others, the lexical parts equal.
    const [a, b] = [0, 4];
    const scale = (part(median, a, 'semantic') - part(median, b, 'semantic')) / (part(mean, a, 'semantic') - part(mean, b, 'semantic'));
    expect(scale).toBeGreaterThan(0);
    for (const turn of TURNS.keys()) {
      expect(part(median, turn, 'lexical')).toBe(part(mean, turn, 'lexical'));
      expect(part(median, turn, 'semantic') - part(median, a, 'semantic')).toBeCloseTo(scale * (part(mean, turn, 'semantic') - part(mean, a, 'semantic')), 9);
    }
    expect(median.map((hit) => hit.explanation.contributions?.semantic)).not.toEqual(mean.map((hit) => hit.explanation.contributions?.semantic));
    await expect(memory.query('s', 'lantern', { semanticNormaliser: 'mode' as 'mean' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await memory.close();
  });
});
